// What the client throws: the API's problem document as a typed error, and its own timeout.
import type { FieldError, Problem } from './types.js';

/** An answer that was not a success: `problem` is the RFC 9457 document the API sent (or one made from the status). */
export class ConduitApiError extends Error {
  override readonly name = 'ConduitApiError';
  readonly status: number;
  /** One of the API's codes; typed open (`string & {}` keeps the known ones suggested) for codes added later. */
  readonly code: Problem['code'] | (string & {});
  readonly title: string;
  readonly detail: string;
  readonly errors: readonly FieldError[];
  readonly requestId: string | undefined;

  constructor(readonly problem: Problem | UnknownProblem) {
    super(`${problem.title} (${problem.status} ${problem.code}): ${problem.detail}`);
    this.status = problem.status;
    this.code = problem.code;
    this.title = problem.title;
    this.detail = problem.detail;
    this.errors = problem.errors ?? [];
    this.requestId = problem.request_id || undefined;
  }
}

/** A problem made by the client when the answer held none (a proxy's HTML error page, an empty body). */
export interface UnknownProblem {
  type: string;
  title: string;
  status: number;
  code: string;
  detail: string;
  errors?: FieldError[];
  instance: string;
  request_id: string;
}

/** waitForRun (or another wait) ran out of time; `last` is the last state seen. */
export class ConduitTimeoutError<T = unknown> extends Error {
  override readonly name = 'ConduitTimeoutError';
  constructor(
    message: string,
    readonly last: T | undefined,
  ) {
    super(message);
  }
}

function isProblem(value: unknown): value is Problem {
  if (typeof value !== 'object' || value === null) return false;
  const doc = value as Record<string, unknown>;
  return typeof doc['status'] === 'number' && typeof doc['code'] === 'string' && typeof doc['title'] === 'string';
}

/** The error for a failed answer whose body was `body` (already parsed, or undefined). */
export function apiErrorOf(response: Response, body: unknown): ConduitApiError {
  if (isProblem(body)) return new ConduitApiError(body);
  const requestId = response.headers.get('x-request-id') ?? '';
  if (response.type === 'opaqueredirect' || (response.status >= 300 && response.status < 400)) {
    const to = response.headers.get('location');
    return new ConduitApiError({
      type: 'about:blank',
      title: 'Redirect not followed',
      status: response.status,
      code: 'redirect_not_followed',
      detail:
        `the server answered a redirect${to ? ` to ${to}` : ''}, which the client does not follow (it would carry ` +
        'the credential there): use the URL the API answers at',
      instance: new URL(response.url || 'http://unknown/').pathname,
      request_id: requestId,
    });
  }
  return new ConduitApiError({
    type: 'about:blank',
    title: response.statusText || 'HTTP error',
    status: response.status,
    code: `http_${response.status}`,
    detail: `the server answered ${response.status} without a problem document`,
    instance: new URL(response.url || 'http://unknown/').pathname,
    request_id: requestId,
  });
}
