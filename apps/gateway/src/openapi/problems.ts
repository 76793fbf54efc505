// The problem documents each operation may answer, by status, with one example per code (built by contracts'
// problemDocument, so a code added to contracts shows up with its title and status without an edit here).
import { type ErrorCode, ERROR_STATUS, EXAMPLE_IDS, problemDocument } from '@conduit/contracts';
import type { OperationSpec } from './operation-spec.js';
import type { ResponseHeaderName } from './headers.js';

/** What the example of each code says; a code without an entry shows its title. */
const EXAMPLE_DETAIL: Partial<
  Record<ErrorCode, Pick<Parameters<typeof problemDocument>[0], 'detail' | 'errors' | 'dependency'>>
> = {
  malformed_json: { detail: 'the body is not JSON: Unexpected token } at position 17' },
  invalid_parameter: {
    detail: 'query parameter limit: Too big: expected number to be <=200',
    errors: [{ path: 'limit', code: 'out_of_range', message: 'Too big: expected number to be <=200' }],
  },
  unauthenticated: { detail: 'missing credential: send X-API-Key or Authorization: Bearer' },
  forbidden: { detail: 'this operation needs the write scope' },
  not_found: { detail: 'no such resource' },
  name_taken: { detail: 'a resource with this name already exists' },
  project_not_empty: { detail: 'the project still has pipelines or connectors' },
  pipeline_in_use: { detail: 'a job uses this pipeline' },
  pipeline_invalid: { detail: 'the pipeline does not validate: 1 error (see Validate Pipeline)' },
  run_in_progress: { detail: 'a run of this job is still active and its concurrency policy is forbid' },
  run_finished: { detail: 'the run is already over' },
  idempotency_in_progress: {
    detail: 'a request with this Idempotency-Key is still being processed; retry after Retry-After',
  },
  request_timeout: { detail: 'the request was not received in time' },
  precondition_failed: { detail: 'If-Match does not match the current ETag' },
  payload_too_large: { detail: 'the body is over 1048576 bytes' },
  unsupported_media_type: { detail: 'send the body as application/json' },
  headers_too_large: { detail: 'the request line and headers are over 16384 bytes' },
  validation_failed: {
    detail: '2 fields are invalid',
    errors: [
      { path: 'name', code: 'required', message: 'is required' },
      { path: 'schedule', code: 'invalid_cron', message: 'expected 5 fields, got 6' },
    ],
  },
  idempotency_key_reused: { detail: 'this Idempotency-Key was used with another request body' },
  rate_limited: { detail: 'more than 600 requests a minute' },
  internal: { detail: 'an unexpected error; the request id ties it to the logs' },
  service_unavailable: { detail: 'a backend service did not answer in time', dependency: 'service' },
};

/** The codes every operation of this kind may answer, besides its own. */
function commonCodes(op: OperationSpec): ErrorCode[] {
  const codes: ErrorCode[] = [
    'invalid_parameter',
    'unauthenticated',
    'forbidden',
    'request_timeout',
    'headers_too_large',
    'rate_limited',
    'internal',
    'service_unavailable',
  ];
  if (op.params) codes.push('not_found');
  if (op.method === 'post' || op.method === 'put' || op.method === 'patch') {
    codes.push('malformed_json', 'payload_too_large', 'unsupported_media_type', 'validation_failed');
  }
  if (op.method === 'delete') codes.push('validation_failed');
  if (op.method === 'post') codes.push('idempotency_in_progress', 'idempotency_key_reused');
  return codes;
}

/** The operation's problem codes grouped by HTTP status, in a stable order. */
export function problemCodesByStatus(op: OperationSpec): Map<number, ErrorCode[]> {
  const codes = [...new Set([...commonCodes(op), ...(op.errors ?? [])])];
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of codes.sort((a, b) => ERROR_STATUS[a] - ERROR_STATUS[b] || a.localeCompare(b))) {
    const status = ERROR_STATUS[code];
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  return byStatus;
}

/** A problem document as the gateway would answer it on this operation. */
export function exampleProblem(code: ErrorCode, op: OperationSpec): ReturnType<typeof problemDocument> {
  const example = EXAMPLE_DETAIL[code] ?? { detail: code.replace(/_/g, ' ') };
  const instance = op.path.replace(/\{([a-z_]+)_id\}/g, (_, kind: string) => exampleIdFor(kind));
  return problemDocument({ code, ...example }, instance, EXAMPLE_IDS.request);
}

function exampleIdFor(kind: string): string {
  const byParam: Record<string, string> = {
    project: EXAMPLE_IDS.project,
    pipeline: EXAMPLE_IDS.pipeline,
    connector: EXAMPLE_IDS.connector,
    job: EXAMPLE_IDS.job,
    run: EXAMPLE_IDS.run,
    webhook: EXAMPLE_IDS.webhook,
    key: EXAMPLE_IDS.apiKey,
  };
  return byParam[kind] ?? kind;
}

/** Response headers of a problem with this status, besides X-Request-Id. */
export function problemHeaders(status: number, codes: readonly ErrorCode[]): ResponseHeaderName[] {
  const headers: ResponseHeaderName[] = [];
  if (status === 401) headers.push('WWW-Authenticate');
  if (status === 429 || status === 503 || codes.includes('idempotency_in_progress')) headers.push('Retry-After');
  // A refusal after the credential was counted (403, 404, 409, 422...) carries the rate-limit headers too.
  if (status !== 401 && status !== 500 && status !== 503) headers.push('RateLimit-Policy', 'RateLimit');
  return headers;
}
