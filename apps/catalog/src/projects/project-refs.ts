import type { EntityManager } from 'typeorm';
import { isId, unknownProjectError, type FieldError } from '@conduit/contracts';
import { ProjectEntity } from './project.entity.js';

/**
 * The field error for a `project_id` that names no project of the tenant (none when absent or null). The
 * foreign key on (tenant_id, project_id) still guards against a project deleted after this check.
 */
export async function projectRefErrors(
  manager: EntityManager,
  tenantId: string,
  projectId: string | null | undefined,
): Promise<FieldError[]> {
  if (projectId === null || projectId === undefined) return [];
  if (isId('project', projectId) && (await manager.existsBy(ProjectEntity, { tenantId, id: projectId }))) return [];
  return [unknownProjectError(projectId)];
}
