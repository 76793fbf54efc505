import type { FastifyRequest } from 'fastify';
import {
  AppError,
  type FieldError,
  type IdKind,
  type RpcPattern,
  isId,
  unknownPipelineError,
  unknownProjectError,
  unknownTemplateError,
} from '@conduit/contracts';
import type { BackendClient } from './backend.client.js';

/**
 * A body field that names another resource. Its owner checks it when the body is otherwise valid; when the body is
 * refused for other faults first, the gateway checks it too, so that errors[] lists every field at fault (api.md).
 */
export interface ReferenceCheck {
  field: string;
  /** The field error when `value` names nothing of the caller's, else null. */
  errorOf(value: string, backend: BackendClient, request: FastifyRequest): Promise<FieldError | null>;
}

/** A reference by id, looked up with the owner's read of one resource (a 404 means it names nothing). */
function byId(field: string, kind: IdKind, read: RpcPattern, error: (id: string) => FieldError): ReferenceCheck {
  return {
    field,
    async errorOf(value, backend, request) {
      if (!isId(kind, value)) return error(value);
      try {
        await backend.call(read, { id: value }, request);
        return null;
      } catch (err) {
        if (err instanceof AppError && err.code === 'not_found') return error(value);
        // The owner could not say (e.g. it is down): the body's other faults are still answered.
        return null;
      }
    },
  };
}

export const PROJECT_REFERENCE = byId('project_id', 'project', 'catalog.projects.get', unknownProjectError);
export const PIPELINE_REFERENCE = byId('pipeline_id', 'pipeline', 'catalog.pipelines.get', unknownPipelineError);

export const TEMPLATE_REFERENCE: ReferenceCheck = {
  field: 'template',
  async errorOf(value, backend, request) {
    try {
      const answer = await backend.call('catalog.templates.list', {}, request);
      return answer.data.data.some((t) => t.name === value) ? null : unknownTemplateError(value);
    } catch {
      return null;
    }
  },
};

/** The errors of every reference in `body` that is not already at fault and names nothing. */
export async function referenceErrors(
  checks: readonly ReferenceCheck[],
  body: unknown,
  atFault: readonly FieldError[],
  backend: BackendClient,
  request: FastifyRequest,
): Promise<FieldError[]> {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return [];
  const found = await Promise.all(
    checks.map((check) => {
      const value = (body as Record<string, unknown>)[check.field];
      if (typeof value !== 'string' || atFault.some((e) => e.path === check.field)) return Promise.resolve(null);
      return check.errorOf(value, backend, request);
    }),
  );
  return found.filter((e): e is FieldError => e !== null);
}
