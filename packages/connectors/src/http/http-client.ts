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
}

export interface HttpResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

const MAX_BODY_BYTES = 64 * 1024 * 1024;

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
      const chunks: Buffer[] = [];
      let size = 0;
      const maxBytes = ex.maxBodyBytes ?? MAX_BODY_BYTES;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > maxBytes) {
          req.destroy(
            new ConnectorError(`response larger than ${maxBytes} bytes`, 'config_error', {
              code: 'response_too_large',
            }),
          );
          return;
        }
        chunks.push(chunk);
      });
      res.on('end', () => {
        clearTimeout(timer);
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') });
      });
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
