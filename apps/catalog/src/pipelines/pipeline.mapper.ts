import { Tagged, type Pipeline } from '@conduit/contracts';
import { etagOf } from '@conduit/service-kit';
import type { PipelineEntity } from './pipeline.entity.js';

export function toPipeline(row: PipelineEntity): Pipeline {
  return {
    id: row.id,
    project_id: row.projectId,
    name: row.name,
    description: row.description,
    dag: row.dag,
    version: row.version,
    status: row.status,
    validation: row.validation,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

/** The ETag changes with every update (version) and every stored validation (its status may change). */
export function pipelineEtag(row: PipelineEntity): string {
  return etagOf(row.id, row.version, row.updatedAt.toISOString(), row.validation.validated_at);
}

export function taggedPipeline(row: PipelineEntity): Tagged<Pipeline> {
  return new Tagged(toPipeline(row), pipelineEtag(row));
}
