import { applyDecorators, HttpCode, SetMetadata } from '@nestjs/common';
import { ApiBody, ApiOperation, ApiParam, ApiQuery, ApiResponse } from '@nestjs/swagger';
import { z } from 'zod';

/** A zod schema as the JSON Schema (2020-12, as OpenAPI 3.1 takes it) of a request body. */
export function jsonSchemaOf(schema: z.ZodType): Record<string, unknown> {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
  return rest;
}

export interface OperationSpec {
  /** The operation name as the specification gives it (`Create Project`). */
  summary: string;
  description?: string;
  status: number;
  body?: z.ZodType;
  bodyRequired?: boolean;
  /** Path parameters, by name. */
  params?: string[];
  /** Query parameters, by name with a description. */
  query?: Record<string, string>;
  errors?: number[];
}

const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: 'malformed_json or invalid_parameter',
  401: 'unauthenticated',
  403: 'forbidden: the credential lacks the scope',
  404: 'not_found',
  409: 'conflict (see the code)',
  412: 'precondition_failed: If-Match does not match the ETag',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  422: 'validation_failed (errors[] lists every field), or another 422 code',
  429: 'rate_limited',
  503: 'service_unavailable',
};

/** What a route accepts besides its path, as its @Operation declares it: RouteInputGuard refuses the rest. */
export const ROUTE_INPUT = 'conduit:route-input';

export interface RouteInput {
  /** Declared query parameters; none declared: a query parameter is a 400. */
  query: readonly string[];
  /** Whether it takes a body; if not, a body with any field is a 422 (typos must not pass silently). */
  body: boolean;
}

/** Status code, OpenAPI description and the problem documents of one operation, from one declaration. */
export function Operation(spec: OperationSpec): MethodDecorator {
  const input: RouteInput = { query: Object.keys(spec.query ?? {}), body: spec.body !== undefined };
  const decorators = [
    SetMetadata(ROUTE_INPUT, input),
    HttpCode(spec.status),
    ApiOperation({ summary: spec.summary, ...(spec.description ? { description: spec.description } : {}) }),
    ApiResponse({ status: spec.status, description: 'success' }),
  ];
  if (spec.body) {
    decorators.push(ApiBody({ schema: jsonSchemaOf(spec.body), required: spec.bodyRequired ?? true }));
  }
  for (const name of spec.params ?? []) decorators.push(ApiParam({ name, type: String }));
  for (const [name, description] of Object.entries(spec.query ?? {})) {
    decorators.push(ApiQuery({ name, required: false, description }));
  }
  for (const status of [400, 401, 403, 429, 503, ...(spec.errors ?? [])]) {
    decorators.push(
      ApiResponse({
        status,
        description: ERROR_DESCRIPTIONS[status] ?? 'problem document',
        content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } },
      }),
    );
  }
  return applyDecorators(...decorators);
}

export const LIST_QUERY = {
  limit: 'page size, 1-200, default 50',
  cursor: 'next_cursor of the previous page',
};
