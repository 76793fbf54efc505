/** Test Connection building blocks shared by drivers that talk TCP: name resolution and a bare TCP connect. */
import { lookup } from 'node:dns/promises';
import { connect as tcpConnect, isIP } from 'node:net';

/** The address to connect to and a message for the resolve step. */
export async function resolveHost(host: string): Promise<{ address: string; message: string }> {
  if (isIP(host)) return { address: host, message: `${host} is an IP address` };
  const found = await lookup(host);
  return { address: found.address, message: `${host} resolves to ${found.address}` };
}

/** Opens and closes a TCP connection; rejects with the socket's error (e.g. ECONNREFUSED). */
export function openTcp(host: string, port: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = tcpConnect({ host, port });
    const onAbort = () => socket.destroy();
    signal.addEventListener('abort', onAbort, { once: true });
    socket.once('connect', () => {
      signal.removeEventListener('abort', onAbort);
      socket.destroy();
      resolve();
    });
    socket.once('error', (err) => {
      signal.removeEventListener('abort', onAbort);
      socket.destroy();
      reject(err);
    });
  });
}

const UNKNOWN_HOST_CODES = new Set(['ENOTFOUND', 'EAI_NONAME', 'EAI_NODATA']);
const TRANSIENT_NET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EHOSTDOWN',
  'ENETDOWN',
  'EPIPE',
  'EAI_AGAIN',
  'EADDRNOTAVAIL',
  'PROTOCOL_CONNECTION_LOST',
]);

export const isUnknownHostCode = (code: string | undefined): boolean =>
  code !== undefined && UNKNOWN_HOST_CODES.has(code);
export const isTransientNetCode = (code: string | undefined): boolean =>
  code !== undefined && TRANSIENT_NET_CODES.has(code);
