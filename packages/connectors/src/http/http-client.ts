/**
 * One HTTP exchange over node:http/https with the network policy enforced at connect time (the resolved address is
 * checked, not just the name, and the connection goes to that address), a per-request timeout, abort, and a bounded response size. Redirects are not followed.
 */
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import { ConnectorError } from '../connector-error.js';
import { checkedAddress, guardedLookup, urlTarget } from '../network/target-check.js';

export interface HttpExchange {
  method: 'GET' | 'POST';
  url: URL;
  headers: Record<string, string>;
  body?: string;
  timeoutMs: number;
  /** Whose request this is, for the network policy (the platform's services are refused per type). */
  connectorType: string;
  signal?: AbortSignal;
  /** The largest answer taken (default MAX_BODY_BYTES): a larger one fails the exchange, code `response_too_large`. */
  maxBodyBytes?: number | undefined;
  /**
   * The caller reads only the answer's status (Test Connection, a write): like an error's, at most EXCERPT_BYTES of its
   * body are read, then the connection is closed.
   */
  statusOnly?: boolean | undefined;
}

export interface HttpResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

const MAX_BODY_BYTES = 64 * 1024 * 1024;
/**
 * What is read of an answer whose body only an error message quotes (a non-2xx answer: statusError keeps 4 KiB) or
 * nobody reads: a server answering megabytes (or never ending) holds no more memory than this, nor the socket.
 */
export const EXCERPT_BYTES = 64 * 1024;

export async function sendHttp(ex: HttpExchange): Promise<HttpResponse> {
  ex.signal?.throwIfAborted();
  const target = urlTarget(ex.connectorType, ex.url.href);
  // An IP literal never goes through `lookup`: check it here. Names are checked on every resolved address below.
  if (isIP(target.host)) await checkedAddress(target);
  const send = ex.url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise<HttpResponse>((resolve, reject) => {
    const req = send(ex.url, {
      method: ex.method,
      headers: ex.body === undefined ? ex.headers : { 'content-type': 'application/json', ...ex.headers },
      lookup: guardedLookup(target),
      signal: ex.signal,
      timeout: ex.timeoutMs,
    });
    // The socket timeout is about idleness; the whole exchange also has to finish within timeoutMs.
    const timer = setTimeout(() => req.destroy(timeoutError(ex.timeoutMs)), ex.timeoutMs);
    req.on('timeout', () => req.destroy(timeoutError(ex.timeoutMs)));
    req.on('error', (err) => {
      clearTimeout(timer);
      reject(ex.signal?.aborted ? ex.signal.reason : err);
    });
    req.on('response', (res) => {
      const status = res.statusCode ?? 0;
      const excerptOnly = ex.statusOnly === true || status < 200 || status >= 300;
      const maxBytes = excerptOnly ? EXCERPT_BYTES : (ex.maxBodyBytes ?? MAX_BODY_BYTES);
      const chunks: Buffer[] = [];
      let size = 0;
      let read = false;
      const answer = () => {
        if (read) return;
        read = true;
        clearTimeout(timer);
        resolve({ status, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') });
      };
      res.on('data', (chunk: Buffer) => {
        if (read) return;
        if (size + chunk.length <= maxBytes) {
          size += chunk.length;
          chunks.push(chunk);
          return;
        }
        if (excerptOnly) {
          // The excerpt is all anyone reads of it: answer with it, and leave the rest unread.
          chunks.push(chunk.subarray(0, maxBytes - size));
          answer();
          res.destroy();
          return;
        }
        req.destroy(
          new ConnectorError(`response larger than ${maxBytes} bytes`, 'config_error', {
            code: 'response_too_large',
          }),
        );
      });
      res.on('end', answer);
      res.on('error', (err) => {
        clearTimeout(timer);
        reject(ex.signal?.aborted ? ex.signal.reason : err);
      });
    });
    req.end(ex.body);
  });
}

function timeoutError(ms: number): Error {
  return Object.assign(new Error(`no complete answer within ${ms} ms`), { code: 'ETIMEDOUT' });
}
