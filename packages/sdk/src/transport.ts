// The fetch every request goes through: credentials, an Idempotency-Key on each POST (one per logical call, the same
// on its retries, so a retry never makes a second resource), and retries by the policy in retry.ts.
import { randomUUID } from 'node:crypto';
import { isRetriedStatus, parseRetryAfter, retryDelay, type RetryPolicy } from './retry.js';

export type Credentials = { apiKey: string; token?: undefined } | { token: string; apiKey?: undefined };

export interface TransportOptions {
  credentials: Credentials | undefined;
  retry: RetryPolicy;
  /** Adds an Idempotency-Key to every POST that has none. Default true. */
  idempotencyKeys: boolean;
  userAgent: string;
  /** The fetch underneath (tests, proxies); default globalThis.fetch. */
  fetch: typeof fetch;
  /** Called before each wait, for logging. */
  onRetry: ((info: RetryInfo) => void) | undefined;
}

export interface RetryInfo {
  method: string;
  url: string;
  attempt: number;
  delayMs: number;
  status: number | undefined;
}

const sleep = (ms: number, signal: AbortSignal | null) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => (clearTimeout(timer), reject(signal.reason)), { once: true });
  });

/** The problem code of a JSON problem answer, read from a copy so the caller still gets the body. */
async function problemCodeOf(response: Response): Promise<string | undefined> {
  if (!/json/.test(response.headers.get('content-type') ?? '')) return undefined;
  try {
    const body: unknown = await response.clone().json();
    return typeof body === 'object' && body !== null && typeof (body as { code?: unknown }).code === 'string'
      ? (body as { code: string }).code
      : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A request may be sent twice when the method is idempotent or an Idempotency-Key makes it so, and it is not
 * conditional: an If-Match write whose first try was applied (its answer lost) would be answered 412 the second time,
 * as if nothing had changed.
 */
function safeToResend(request: Request): boolean {
  if (request.headers.has('if-match')) return false;
  return request.method !== 'POST' && request.method !== 'PATCH' ? true : request.headers.has('idempotency-key');
}

/** A 429 is answered before any work: the one answer after which a conditional write is sent again. */
const TRIED_NOTHING = 429;

export function createTransport(options: TransportOptions): (input: Request) => Promise<Response> {
  // Called as a plain function, never as a method of `options`: a browser's fetch throws "Illegal invocation" when
  // its `this` is anything but the global object.
  const send = options.fetch;
  return async (input: Request): Promise<Response> => {
    const headers = new Headers(input.headers);
    if (options.credentials?.apiKey !== undefined) headers.set('x-api-key', options.credentials.apiKey);
    else if (options.credentials?.token !== undefined)
      headers.set('authorization', `Bearer ${options.credentials.token}`);
    if (options.idempotencyKeys && input.method === 'POST' && !headers.has('idempotency-key'))
      headers.set('idempotency-key', randomUUID());
    if (!headers.has('user-agent')) headers.set('user-agent', options.userAgent);
    // The body is read once into memory so every attempt can send it again (bodies are at most 1 MiB).
    const body = input.body === null ? undefined : await input.arrayBuffer();
    const request = new Request(input.url, {
      method: input.method,
      headers,
      body,
      signal: input.signal,
      // Never followed: fetch drops Authorization on a redirect to another origin but keeps X-API-Key, so following
      // one would hand the key to whatever host the answer names. The API never redirects; the answer is an error.
      redirect: 'manual',
    });

    for (let attempt = 1; ; attempt++) {
      let response: Response | undefined;
      let failure: unknown;
      try {
        response = await send.call(globalThis, request.clone());
      } catch (err) {
        if (request.signal.aborted || !safeToResend(request)) throw err;
        failure = err;
      }
      let delay: number | undefined;
      if (response) {
        if (
          !isRetriedStatus(
            options.retry,
            response.status,
            response.status === 409 ? await problemCodeOf(response) : undefined,
          )
        )
          return response;
        // A 503 may come after the write was applied (the gateway gave up waiting for its owner).
        if (response.status !== TRIED_NOTHING && request.headers.has('if-match')) return response;
        delay = retryDelay(options.retry, attempt, parseRetryAfter(response.headers.get('retry-after')));
        if (delay === undefined) return response;
      } else {
        delay = retryDelay(options.retry, attempt, undefined);
        if (delay === undefined) throw failure;
      }
      options.onRetry?.({
        method: request.method,
        url: request.url,
        attempt,
        delayMs: delay,
        status: response?.status,
      });
      // Free the connection of the answer we drop.
      await response?.body?.cancel().catch(() => undefined);
      await sleep(delay, request.signal);
    }
  };
}
