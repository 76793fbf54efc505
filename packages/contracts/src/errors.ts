/** The error model of api.md: every error is an RFC 9457 problem document with one of these codes. */
export const ERROR_STATUS = {
  malformed_json: 400,
  invalid_parameter: 400,
  unauthenticated: 401,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  name_taken: 409,
  project_not_empty: 409,
  pipeline_in_use: 409,
  pipeline_invalid: 409,
  run_in_progress: 409,
  run_finished: 409,
  idempotency_in_progress: 409,
  request_timeout: 408,
  precondition_failed: 412,
  payload_too_large: 413,
  unsupported_media_type: 415,
  headers_too_large: 431,
  validation_failed: 422,
  unknown_pipeline: 422,
  unknown_connector: 422,
  unknown_project: 422,
  unknown_template: 422,
  idempotency_key_reused: 422,
  rate_limited: 429,
  internal: 500,
  service_unavailable: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

const TITLES: Record<ErrorCode, string> = {
  malformed_json: 'Malformed JSON',
  invalid_parameter: 'Invalid parameter',
  unauthenticated: 'Unauthenticated',
  forbidden: 'Forbidden',
  not_found: 'Not found',
  method_not_allowed: 'Method not allowed',
  name_taken: 'Name taken',
  project_not_empty: 'Project not empty',
  pipeline_in_use: 'Pipeline in use',
  pipeline_invalid: 'Pipeline invalid',
  run_in_progress: 'Run in progress',
  run_finished: 'Run finished',
  idempotency_in_progress: 'Idempotent request in progress',
  request_timeout: 'Request timeout',
  precondition_failed: 'Precondition failed',
  payload_too_large: 'Payload too large',
  unsupported_media_type: 'Unsupported media type',
  headers_too_large: 'Request headers too large',
  validation_failed: 'Validation failed',
  unknown_pipeline: 'Unknown pipeline',
  unknown_connector: 'Unknown connector',
  unknown_project: 'Unknown project',
  unknown_template: 'Unknown template',
  idempotency_key_reused: 'Idempotency key reused',
  rate_limited: 'Rate limited',
  internal: 'Internal error',
  service_unavailable: 'Service unavailable',
};

/** What a 503 could not reach: the class of the dependency, never its address. */
export type Dependency = 'database' | 'redis' | 'service';

/** One field at fault in a 422: `path` is a dotted/bracketed path into the body or query (`dag.nodes[2].config`). */
export interface FieldError {
  path: string;
  code: string;
  message: string;
}

/** A domain error as it travels between processes: plain data, turned into a problem document by the gateway. */
export interface DomainError {
  code: ErrorCode;
  detail: string;
  errors?: FieldError[];
  /** On a 503: which class of dependency is unavailable. */
  dependency?: Dependency;
}

export interface ProblemDocument {
  type: string;
  title: string;
  status: number;
  code: ErrorCode;
  detail: string;
  errors?: FieldError[];
  dependency?: Dependency;
  instance: string;
  request_id: string;
}

/** A domain error thrown inside a service; the RPC handler returns it as data. */
export class AppError extends Error {
  readonly code: ErrorCode;
  readonly errors?: FieldError[];
  readonly dependency?: Dependency;
  constructor(code: ErrorCode, detail: string, errors?: FieldError[], dependency?: Dependency) {
    super(detail);
    this.name = 'AppError';
    this.code = code;
    if (errors) this.errors = errors;
    if (dependency) this.dependency = dependency;
  }

  /** The error a reply envelope carried, as thrown again on the caller's side. */
  static fromDomainError(error: DomainError): AppError {
    return new AppError(error.code, error.detail, error.errors, error.dependency);
  }

  toDomainError(): DomainError {
    const error: DomainError = { code: this.code, detail: this.message };
    if (this.errors) error.errors = this.errors;
    if (this.dependency) error.dependency = this.dependency;
    return error;
  }
}

export function statusOf(code: ErrorCode): number {
  return ERROR_STATUS[code];
}

export function problemDocument(error: DomainError, instance: string, requestId: string): ProblemDocument {
  const doc: ProblemDocument = {
    type: `/problems/${error.code.replace(/_/g, '-')}`,
    title: TITLES[error.code],
    status: ERROR_STATUS[error.code],
    code: error.code,
    detail: error.detail,
    instance,
    request_id: requestId,
  };
  if (error.errors) doc.errors = error.errors;
  if (error.dependency) doc.dependency = error.dependency;
  return doc;
}

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && Object.hasOwn(ERROR_STATUS, value);
}

/** A 422 listing every field at fault. */
export function validationFailed(errors: FieldError[]): AppError {
  const n = errors.length;
  return new AppError('validation_failed', `${n} ${n === 1 ? 'field is' : 'fields are'} invalid`, errors);
}
