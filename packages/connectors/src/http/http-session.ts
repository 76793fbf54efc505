/**
 * Requests to one http connector: auth and extra headers, the network policy, and retries of 429 / 5xx / dropped
 * connections honouring Retry-After (bounded by max_retry_wait_ms). Errors are ConnectorErrors without secrets.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { scrubSecrets } from '../secret-scrub.js';
import { ConnectorError } from '../connector-error.js';
import { sendHttp, type HttpExchange, type HttpResponse } from './http-client.js';
import { authHeaders, httpSecrets, type HttpConfig } from './http.config.js';
import { isRetryableStatus, isTransientNetworkError, statusError, toConnectorError } from './http-errors.js';

const FIRST_BACKOFF_MS = 250;

/** Retry-After as milliseconds (delta-seconds or an HTTP date), or undefined when absent or unreadable. */
export function retryAfterMs(value: string | string[] | undefined, now = Date.now()): number | undefined {
  const text = Array.isArray(value) ? value[0] : value;
  if (text === undefined || text.trim() === '') return undefined;
  if (/^\d+$/.test(text.trim())) return Number(text.trim()) * 1000;
  const date = Date.parse(text);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

export class HttpSession {
  readonly secrets: readonly string[];
  constructor(
    readonly cfg: HttpConfig,
    private readonly connectorType = 'http',
  ) {
    this.secrets = httpSecrets(cfg);
  }

  /**
   * A successful (2xx) answer, after the retries the config allows; anything else throws. An answer past
   * `read.maxBodyBytes` (default: sendHttp's 64 MiB) fails with code `response_too_large`; with `read.statusOnly`,
   * only the start of the body is read (HttpExchange).
   */
  async request(
    method: 'GET' | 'POST',
    url: URL,
    body: string | undefined,
    signal?: AbortSignal,
    read: Pick<HttpExchange, 'maxBodyBytes' | 'statusOnly'> = {},
  ): Promise<HttpResponse> {
    for (let attempt = 0; ; attempt++) {
      let res: HttpResponse;
      try {
        res = await sendHttp({
          method,
          url,
          body,
          signal,
          connectorType: this.connectorType,
          timeoutMs: this.cfg.timeout_ms,
          ...read,
          headers: { accept: 'application/json', ...this.cfg.headers, ...authHeaders(this.cfg) },
        });
      } catch (err) {
        if (signal?.aborted || !isTransientNetworkError(err) || attempt >= this.cfg.max_retries)
          throw this.clean(err, signal);
        await this.backoff(attempt, undefined, signal);
        continue;
      }
      if (res.status >= 200 && res.status < 300) return res;
      if (!isRetryableStatus(res.status) || attempt >= this.cfg.max_retries) {
        throw statusError(res, `${method} ${this.describe(url)}`, this.secrets);
      }
      await this.backoff(attempt, retryAfterMs(res.headers['retry-after']), signal);
    }
  }

  /** The URL as shown in messages: no query string (it may carry keys), no user info. */
  describe(url: URL): string {
    return `${url.origin}${url.pathname}`;
  }

  private async backoff(attempt: number, retryAfter: number | undefined, signal?: AbortSignal): Promise<void> {
    const wait = Math.min(retryAfter ?? FIRST_BACKOFF_MS * 2 ** attempt, this.cfg.max_retry_wait_ms);
    await sleep(wait, undefined, { signal }).catch((err: unknown) => {
      throw signal?.aborted ? signal.reason : err;
    });
  }

  private clean(err: unknown, signal?: AbortSignal): unknown {
    const converted = toConnectorError(err, signal);
    if (!(converted instanceof ConnectorError)) return converted;
    const message = scrubSecrets(converted.message, this.secrets);
    if (message === converted.message) return converted;
    return new ConnectorError(message, converted.errorClass, { code: converted.code });
  }
}
