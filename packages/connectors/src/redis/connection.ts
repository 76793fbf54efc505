/** Opening and closing ioredis clients, and turning their failures into ConnectorErrors without secrets. */
import { Redis } from 'ioredis';
import { scrubSecrets } from '../secret-scrub.js';
import { ConnectorError } from '../connector-error.js';
import { isTransientNetCode, isUnknownHostCode } from '../network-steps.js';
import { checkedAddress, tlsServerName } from '../network/target-check.js';
import type { ErrorClass } from '../types.js';
import type { RedisConfig } from './redis.config.js';

/**
 * A connected (and authenticated) client on the address the network policy checked (resolved now); no reconnects
 * or offline queue, so a failure surfaces at once. TLS still verifies the configured host name.
 */
export async function connectRedis(cfg: RedisConfig, signal?: AbortSignal): Promise<Redis> {
  signal?.throwIfAborted();
  const address = await checkedAddress({ connectorType: 'redis', host: cfg.host, port: cfg.port });
  const client = new Redis({
    host: address,
    port: cfg.port,
    username: cfg.username,
    password: cfg.password,
    db: cfg.db,
    tls: cfg.tls ? { servername: tlsServerName(cfg.host) } : undefined,
    connectTimeout: cfg.connect_timeout_ms,
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    connectionName: 'conduit',
  });
  let lastError: unknown;
  client.on('error', (err: unknown) => (lastError = err));
  const onAbort = () => client.disconnect();
  signal?.addEventListener('abort', onAbort, { once: true });
  try {
    await client.connect();
    return client;
  } catch (err) {
    client.disconnect();
    throw signal?.aborted ? signal.reason : (lastError ?? err);
  } finally {
    signal?.removeEventListener('abort', onAbort);
  }
}

export async function closeRedis(client: Redis): Promise<void> {
  await Promise.race([client.quit(), new Promise((resolve) => setTimeout(resolve, 1000).unref())]).catch(
    () => undefined,
  );
  client.disconnect();
}

export function classifyRedisError(err: unknown): { error_class: ErrorClass; message: string } {
  if (err instanceof ConnectorError) return { error_class: err.errorClass, message: err.message };
  const code = (err as { code?: unknown } | null)?.code;
  const message = err instanceof Error && err.message !== '' ? err.message : String(err);
  if (typeof code === 'string' && isUnknownHostCode(code))
    return { error_class: 'config_error', message: `unknown host: ${message}` };
  if (typeof code === 'string' && isTransientNetCode(code)) return { error_class: 'transient_error', message };
  if (/^(WRONGPASS|NOAUTH|NOPERM)|AUTH .*without any password|invalid username-password/i.test(message)) {
    return { error_class: 'config_error', message: `authentication or permission refused: ${message}` };
  }
  if (/^(ERR|WRONGTYPE|NOGROUP)/.test(message)) return { error_class: 'config_error', message };
  return { error_class: 'transient_error', message };
}

export function toRedisError(err: unknown, secrets: readonly string[], signal?: AbortSignal): unknown {
  if (signal?.aborted) return signal.reason;
  const { error_class, message } = classifyRedisError(err);
  const code = (err as { code?: unknown } | null)?.code;
  return new ConnectorError(scrubSecrets(message, secrets), error_class, {
    code: typeof code === 'string' ? code : undefined,
  });
}
