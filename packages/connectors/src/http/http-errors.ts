/** Classifies HTTP answers and network failures: settings to fix (config_error) or worth retrying (transient_error). */
import { scrubSecrets, MAX_FORM_GROWTH } from '../secret-scrub.js';
import { ConnectorError } from '../connector-error.js';
import type { ErrorClass } from '../types.js';
import type { HttpResponse } from './http-client.js';
import { isTransientNetCode, isUnknownHostCode } from '../network-steps.js';

/** network-steps' transient codes (every connector's), plus undici's own name for a socket failing mid-request. */
function isTransientCode(code: unknown): boolean {
  return typeof code === 'string' && (isTransientNetCode(code) || code === 'UND_ERR_SOCKET');
}

/** 429 and 5xx may pass on a retry; 408 too. */
export function isRetryableStatus(status: number): boolean {
  return status === 429 || status === 408 || status >= 500;
}

export function isTransientNetworkError(err: unknown): boolean {
  return isTransientCode((err as { code?: unknown } | null)?.code);
}

export function classifyHttpError(err: unknown): { error_class: ErrorClass; message: string } {
  if (err instanceof ConnectorError) return { error_class: err.errorClass, message: err.message };
  const code = (err as { code?: unknown } | null)?.code;
  const message = err instanceof Error && err.message !== '' ? err.message : String(err);
  if (typeof code === 'string' && isUnknownHostCode(code)) {
    return { error_class: 'config_error', message: `unknown host: ${message}` };
  }
  if (isTransientCode(code)) return { error_class: 'transient_error', message };
  if (/certificate|self.signed|SSL|TLS/i.test(message)) return { error_class: 'config_error', message };
  return { error_class: 'transient_error', message };
}

export function toConnectorError(err: unknown, signal?: AbortSignal): unknown {
  if (signal?.aborted) return signal.reason;
  if (err instanceof ConnectorError) return err;
  const { error_class, message } = classifyHttpError(err);
  const code = (err as { code?: unknown } | null)?.code;
  return new ConnectorError(message, error_class, { code: typeof code === 'string' ? code : undefined });
}

/** A non-2xx answer: its status and (scrubbed) body, for callers that read the server's own error text. */
export class HttpStatusError extends ConnectorError {
  constructor(
    message: string,
    errorClass: ErrorClass,
    readonly status: number,
    /** The first 4 KB of the answer, secrets scrubbed. */
    readonly responseBody: string,
  ) {
    super(message, errorClass, { code: `HTTP_${status}` });
    this.name = 'HttpStatusError';
  }
}

/** An unsuccessful answer as an error: authentication and missing resources are settings, 429/5xx transient. */
export function statusError(res: HttpResponse, what: string, secrets: readonly string[]): HttpStatusError {
  const hint = res.status === 401 ? ' (check the credentials)' : res.status === 403 ? ' (no permission)' : '';
  // The server may echo what we sent, so its answer is scrubbed before it is cut (a cut could split a secret, in any
  // of the forms it is looked for in).
  const longest = Math.max(0, ...secrets.map((s) => s.length)) * MAX_FORM_GROWTH;
  const body = scrubSecrets(res.body.slice(0, 4096 + longest), secrets).slice(0, 4096);
  const snippet = body.slice(0, 200).replace(/\s+/g, ' ').trim();
  const errorClass: ErrorClass = isRetryableStatus(res.status) ? 'transient_error' : 'config_error';
  return new HttpStatusError(
    `${what} answered HTTP ${res.status}${hint}${snippet ? `: ${snippet}` : ''}`,
    errorClass,
    res.status,
    body,
  );
}
