// The OpenAPI 3.1 document of the public API, generated from the operation declarations and the contracts' zod
// schemas (zod-openapi renders them with zod's own JSON Schema conversion).
import {
  createDocument,
  type ZodOpenApiComponentsObject,
  type ZodOpenApiOperationObject,
  type ZodOpenApiResponsesObject,
} from 'zod-openapi';
import { type ErrorCode, problemSchema } from '@conduit/contracts';
import { type OperationSpec, TAGS } from './operation-spec.js';
import { OPERATIONS } from './operations/index.js';
import { exampleProblem, problemCodesByStatus, problemHeaders } from './problems.js';
import { RESPONSE_HEADERS, type ResponseHeaderName, headerRef, idempotencyKeyParam, ifMatchParam } from './headers.js';

const DESCRIPTION = `Conduit builds and runs data pipelines over an HTTP API.

Every /v2 operation takes \`X-API-Key: <key>\` or \`Authorization: Bearer <jwt>\` (one of them, not both). Errors are
RFC 9457 problem documents (\`application/problem+json\`) with a stable \`code\`. Lists answer \`{ data, next_cursor }\`,
newest first, paged with \`limit\` (1-200, default 50) and \`cursor\`; an unknown query parameter is a 400. Every POST
accepts \`Idempotency-Key\`; resources carry an \`ETag\` and updates and deletes honour \`If-Match\`. Rate limits are
announced with \`RateLimit-Policy\` and \`RateLimit\` headers. Ids are opaque strings with a type prefix; a malformed id
in a path is a 404.

Public: \`/healthz\`, \`/readyz\`, this document (\`/v2/openapi.json\`) and Swagger UI (\`/docs\`). Prometheus metrics are on
each service's own metrics port, not on this API.`;

function headersOf(names: readonly ResponseHeaderName[]) {
  return Object.fromEntries(names.map((name) => [name, headerRef(name)]));
}

function successResponse(op: OperationSpec): ZodOpenApiResponsesObject {
  const names: ResponseHeaderName[] = ['X-Request-Id'];
  if (!op.public) names.push('RateLimit-Policy', 'RateLimit');
  if (op.method === 'post' && !op.public) names.push('Idempotent-Replayed');
  names.push(...(op.headers ?? []));
  const headers = headersOf(names);
  if (!op.response) return { [op.status]: { description: 'Done; no body.', headers } };
  const content: Record<string, unknown> = {
    'application/json': { schema: op.response.schema, examples: op.response.examples },
  };
  for (const [type, alt] of Object.entries(op.alsoAnswers ?? {}))
    content[type] = { schema: alt.schema, example: alt.example };
  return { [op.status]: { description: op.response.description, headers, content } };
}

/** Problems whose answer is the same on every operation: one shared response each, referenced. */
const SHARED_PROBLEMS: Record<number, string> = {
  401: 'Unauthenticated',
  403: 'Forbidden',
  413: 'PayloadTooLarge',
  415: 'UnsupportedMediaType',
  429: 'RateLimited',
  500: 'InternalError',
  503: 'ServiceUnavailable',
};

function problemResponse(status: number, codes: readonly ErrorCode[], op: OperationSpec) {
  const examples = Object.fromEntries(codes.map((code) => [code, { summary: code, value: exampleProblem(code, op) }]));
  return {
    description: `Problem: ${codes.map((c) => `\`${c}\``).join(', ')}.`,
    headers: headersOf(['X-Request-Id', ...problemHeaders(status, codes)]),
    content: { 'application/problem+json': { schema: problemSchema, examples } },
  };
}

/** Shared problem responses by component name, with the status and codes each was made for. */
type SharedProblems = Map<string, { key: string; response: unknown }>;

function problemResponses(op: OperationSpec, shared: SharedProblems): ZodOpenApiResponsesObject {
  const responses: Record<string, unknown> = {};
  for (const [status, codes] of problemCodesByStatus(op)) {
    const name = SHARED_PROBLEMS[status];
    const key = `${status}:${codes.join(',')}`;
    if (name && (shared.get(name)?.key ?? key) === key) {
      // The shared example's instance is one path; the answer's is the request's own.
      if (!shared.has(name)) shared.set(name, { key, response: problemResponse(status, codes, op) });
      responses[status] = { $ref: `#/components/responses/${name}` };
    } else {
      // An operation that answers other codes with this status shows its own.
      responses[status] = problemResponse(status, codes, op);
    }
  }
  return responses as ZodOpenApiResponsesObject;
}

function operationObject(op: OperationSpec, shared: SharedProblems): ZodOpenApiOperationObject {
  const headerParams = [...(op.headerParams ?? [])];
  if (op.method === 'post' && !op.public) headerParams.push(idempotencyKeyParam);
  if ((op.method === 'put' || op.method === 'patch') && op.headers?.includes('ETag')) headerParams.push(ifMatchParam);
  // A delete answers no ETag (204); one that can answer 412 takes the ETag its resource's reads answered.
  if (op.method === 'delete' && op.errors?.includes('precondition_failed')) headerParams.push(ifMatchParam);
  const other = Object.fromEntries(
    Object.entries(op.otherResponses ?? {}).map(([status, r]) => [
      status,
      {
        description: r.description,
        headers: headersOf(['X-Request-Id']),
        content: { 'application/json': { schema: r.schema, example: r.example } },
      },
    ]),
  );
  return {
    operationId: op.operationId,
    summary: op.summary,
    description: op.description,
    tags: [op.tag],
    ...(op.public ? { security: [] } : {}),
    requestParams: { ...(op.params ? { path: op.params } : {}), ...(op.query ? { query: op.query } : {}) },
    ...(headerParams.length > 0 ? { parameters: headerParams } : {}),
    ...(op.body
      ? {
          requestBody: {
            required: op.body.required,
            content: { 'application/json': { schema: op.body.schema, examples: op.body.examples } },
          },
        }
      : {}),
    responses: { ...successResponse(op), ...other, ...problemResponses(op, shared) },
  };
}

export type OpenApiDocument = ReturnType<typeof createDocument>;

/** The whole document; pure, so a test, a script and the running gateway make the same one. */
export function buildOpenApiDocument(): OpenApiDocument {
  const paths: Record<string, Record<string, ZodOpenApiOperationObject>> = {};
  const shared: SharedProblems = new Map();
  for (const op of OPERATIONS) (paths[op.path] ??= {})[op.method] = operationObject(op, shared);
  return createDocument({
    openapi: '3.1.0',
    info: {
      title: 'Conduit API',
      version: '2',
      description: DESCRIPTION,
      contact: { name: 'Conduit platform team' },
      license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
    },
    servers: [
      { url: '/', description: 'The gateway that serves this document (locally http://localhost:3000, GATEWAY_PORT).' },
    ],
    tags: Object.entries(TAGS).map(([name, description]) => ({ name, description })),
    security: [{ ApiKey: [] }, { Bearer: [] }],
    paths,
    components: {
      securitySchemes: {
        ApiKey: {
          type: 'apiKey',
          in: 'header',
          name: 'X-API-Key',
          description: 'An API key (`cnd_...`), made with Create API Key.',
        },
        Bearer: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'JWT',
          description: 'A JWT from the configured issuer; tenant and scopes from its claims.',
        },
      },
      headers: RESPONSE_HEADERS,
      responses: Object.fromEntries([...shared].map(([name, { response }]) => [name, response])) as NonNullable<
        ZodOpenApiComponentsObject['responses']
      >,
    },
  });
}
