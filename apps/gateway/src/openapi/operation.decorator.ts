import { applyDecorators, HttpCode, SetMetadata } from '@nestjs/common';
import { operationSpec } from './operations/index.js';

/** What a route accepts besides its path, from its operation's declaration: RouteInputGuard refuses the rest. */
export const ROUTE_INPUT = 'conduit:route-input';
/** The operationId a route serves (a spec checks every route against its declaration's method and path). */
export const OPERATION_ID = 'conduit:operation-id';

export interface RouteInput {
  /** Declared query parameters; none declared: a query parameter is a 400. */
  query: readonly string[];
  /** Whether it takes a body; if not, a body with any field is a 422 (typos must not pass silently). */
  body: boolean;
}

/**
 * Binds a route to its operation in the OpenAPI document (operations/): the route answers the operation's success
 * status, and accepts the query parameters and body the document declares, nothing else.
 */
export function Operation(operationId: string): MethodDecorator {
  const op = operationSpec(operationId);
  const input: RouteInput = { query: Object.keys(op.query?.shape ?? {}), body: op.body !== undefined };
  return applyDecorators(SetMetadata(ROUTE_INPUT, input), SetMetadata(OPERATION_ID, operationId), HttpCode(op.status));
}
