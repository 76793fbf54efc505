import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import type { ResolvedTarget } from '../security/url-policy.js';
import { retryAfterMs } from './retry-after.js';

/** What one POST gave: a status code when the receiver answered, or the error that stopped it. */
export interface SendResult {
  statusCode: number | null;
  latencyMs: number;
  error: string | null;
  /** The receiver's Retry-After as a delay, when it sent one. */
  retryAfterMs: number | null;
}

const MAX_ERROR_LENGTH = 500;
/** How much of an answer's body is read, and for how long after its headers, before the connection is closed. */
export const DRAIN_MAX_BYTES = 64 * 1024;
export const DRAIN_MS = 1_000;

function pinnedLookup(address: string, family: 4 | 6): LookupFunction {
  return (_hostname, options, callback) => {
    if (options.all) callback(null, [{ address, family }]);
    else callback(null, address, family);
  };
}

function describe(err: unknown): string {
  const e = err as NodeJS.ErrnoException;
  const text = e.code && !e.message.includes(e.code) ? `${e.code}: ${e.message}` : e.message;
  return (text || 'request failed').slice(0, MAX_ERROR_LENGTH);
}

/**
 * POSTs a signed body to a webhook. The connection goes to the address checked just before (never to a fresh DNS
 * answer), redirects are not followed (Node's http client never does), and an answer that takes longer than
 * the timeout fails. Keep-alive agents reuse connections to busy receivers.
 */
export class DeliverySender {
  private readonly httpAgent = new http.Agent({ keepAlive: true, maxSockets: 256 });
  private readonly httpsAgent = new https.Agent({ keepAlive: true, maxSockets: 256 });

  send(target: ResolvedTarget, headers: Record<string, string>, body: string, timeoutMs: number): Promise<SendResult> {
    const started = performance.now();
    const { url } = target;
    const secure = url.protocol === 'https:';
    const hostname = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
    return new Promise<SendResult>((resolve) => {
      let settled = false;
      const finish = (result: Omit<SendResult, 'latencyMs'>, atLeastMs = 0): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve({ ...result, latencyMs: Math.max(atLeastMs, Math.round(performance.now() - started)) });
      };
      const options: https.RequestOptions = {
        protocol: url.protocol,
        hostname,
        port: url.port === '' ? (secure ? 443 : 80) : Number(url.port),
        path: `${url.pathname}${url.search}`,
        method: 'POST',
        agent: secure ? this.httpsAgent : this.httpAgent,
        headers: {
          'content-type': 'application/json',
          'content-length': String(Buffer.byteLength(body)),
          'user-agent': 'Conduit-Webhooks/1.0',
          ...headers,
        },
        ...(isIP(hostname) === 0 ? { lookup: pinnedLookup(target.address, target.family), servername: hostname } : {}),
      };
      const req = (secure ? https : http).request(options, (res) => {
        // The status decides; the body is drained (so the connection can be reused) and ignored, as far as
        // DRAIN_MAX_BYTES within DRAIN_MS: a receiver that sends more, or slowly, loses its connection instead of
        // holding a socket and the dispatcher's CPU for as long as it likes.
        res.on('error', () => undefined);
        let drained = 0;
        const cut = setTimeout(() => res.destroy(), DRAIN_MS);
        cut.unref();
        res.on('data', (chunk: Buffer) => {
          drained += chunk.length;
          if (drained > DRAIN_MAX_BYTES) res.destroy();
        });
        res.on('close', () => clearTimeout(cut));
        const status = res.statusCode ?? 0;
        finish({
          statusCode: status,
          error: errorOfStatus(status),
          retryAfterMs: retryAfterMs(res.headers['retry-after'], new Date()),
        });
      });
      const timer = setTimeout(() => {
        // libuv runs timers off the event loop's cached clock, so this may fire a fraction of a millisecond before
        // performance.now() says the time is up: the attempt waited the whole timeout either way.
        finish(
          { statusCode: null, error: `timed out after ${timeoutMs} ms without an answer`, retryAfterMs: null },
          timeoutMs,
        );
        req.destroy();
      }, timeoutMs);
      req.on('error', (err) => finish({ statusCode: null, error: describe(err), retryAfterMs: null }));
      req.end(body);
    });
  }

  close(): void {
    this.httpAgent.destroy();
    this.httpsAgent.destroy();
  }
}

/** Only a 2xx is a success; a redirect is a failure (it is not followed). */
export function errorOfStatus(status: number): string | null {
  if (status >= 200 && status < 300) return null;
  if (status >= 300 && status < 400) return `the receiver answered ${status}: redirects are not followed`;
  return `the receiver answered ${status}`;
}
