/** Opening and closing NATS connections, and turning client failures into ConnectorErrors without secrets. */
import { isIP } from 'node:net';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { scrubSecrets } from '../secret-scrub.js';
import { ConnectorError } from '../connector-error.js';
import { isTransientNetCode, isUnknownHostCode } from '../network-steps.js';
import { checkedAddress, tlsServerName } from '../network/target-check.js';
import type { ErrorClass } from '../types.js';
import type { NatsConfig } from './nats.config.js';

const CLOSE_GRACE_MS = 1_000;

/**
 * Connects once (no reconnects: a data-plane call fails and is retried by the run) to the address the network policy
 * checked (resolved now), ignoring servers the cluster announces (they were not checked); an abort closes it.
 */
export async function connectNats(cfg: NatsConfig, signal?: AbortSignal): Promise<NatsConnection> {
  signal?.throwIfAborted();
  const address = await checkedAddress({ connectorType: 'nats', host: cfg.host, port: cfg.port });
  // The client passes its tls options on to node:tls, which verifies the configured name (its type omits servername).
  const tlsOptions: { servername?: string; rejectUnauthorized: boolean } = {
    servername: tlsServerName(cfg.host),
    rejectUnauthorized: true,
  };
  const opening = connect({
    servers: isIP(address) === 6 ? `[${address}]:${cfg.port}` : `${address}:${cfg.port}`,
    user: cfg.user,
    pass: cfg.password,
    token: cfg.token,
    tls: cfg.tls ? tlsOptions : undefined,
    ignoreClusterUpdates: true,
    timeout: cfg.connect_timeout_ms,
    reconnect: false,
    name: 'conduit',
  });
  if (!signal) return opening;
  return new Promise<NatsConnection>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    opening.then(
      (nc) => {
        signal.removeEventListener('abort', onAbort);
        if (signal.aborted) void closeNats(nc);
        else resolve(nc);
      },
      (err: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(err);
      },
    );
  });
}

/** Flushes what is pending (acks) and closes, cutting it short after a second. */
export async function closeNats(nc: NatsConnection): Promise<void> {
  const closing = nc
    .flush()
    .catch(() => undefined)
    .then(() => nc.close());
  await Promise.race([closing, new Promise((resolve) => setTimeout(resolve, CLOSE_GRACE_MS).unref())]).catch(
    () => undefined,
  );
  if (!nc.isClosed()) await nc.close().catch(() => undefined);
}

/** What the cause chain says: the NATS client wraps socket errors (code on the cause). */
function codeOf(err: unknown): string | undefined {
  for (
    let e = err as { code?: unknown; cause?: unknown } | null, depth = 0;
    e && depth < 4;
    e = e.cause as typeof e, depth++
  ) {
    if (typeof e.code === 'string' && /^E[A-Z_]+$/.test(e.code)) return e.code;
  }
  return undefined;
}

export function classifyNatsError(err: unknown): { error_class: ErrorClass; message: string } {
  if (err instanceof ConnectorError) return { error_class: err.errorClass, message: err.message };
  const message = err instanceof Error && err.message !== '' ? err.message : String(err);
  const code = codeOf(err);
  const name = err instanceof Error ? err.constructor.name : '';
  if (isUnknownHostCode(code)) return { error_class: 'config_error', message: `unknown host: ${message}` };
  if (isTransientNetCode(code)) return { error_class: 'transient_error', message: `${message} (${code})` };
  if (
    /authorization violation|authentication|auth.*(expired|revoked)|permissions? violation/i.test(message) ||
    name === 'AuthorizationError'
  ) {
    return { error_class: 'config_error', message: `authentication or permission refused: ${message}` };
  }
  if (/not found|jetstream not enabled|invalid|bad request/i.test(message))
    return { error_class: 'config_error', message };
  return { error_class: 'transient_error', message };
}

export function toNatsError(err: unknown, secrets: readonly string[], signal?: AbortSignal): unknown {
  if (signal?.aborted) return signal.reason;
  const { error_class, message } = classifyNatsError(err);
  return new ConnectorError(scrubSecrets(message, secrets), error_class, { code: codeOf(err) });
}
