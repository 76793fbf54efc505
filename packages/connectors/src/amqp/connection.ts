/** Opening and closing broker connections, and turning amqplib failures into ConnectorErrors without secrets. */
import amqp, { type ChannelModel } from 'amqplib';
import { scrubSecrets } from '../secret-scrub.js';
import { ConnectorError } from '../connector-error.js';
import { isTransientNetCode, isUnknownHostCode } from '../network-steps.js';
import { checkedAddress, tlsServerName } from '../network/target-check.js';
import type { ErrorClass } from '../types.js';
import type { AmqpConfig } from './amqp.config.js';

const CLOSE_GRACE_MS = 1_000;

/**
 * Connects (and authenticates) to the address the network policy checked (resolved now); TLS verifies the configured
 * host name. An abort of `signal` gives up and closes whatever was opened.
 */
export async function connectAmqp(cfg: AmqpConfig, signal?: AbortSignal): Promise<ChannelModel> {
  signal?.throwIfAborted();
  const address = await checkedAddress({ connectorType: 'amqp', host: cfg.host, port: cfg.port });
  const opening = amqp
    .connect(
      {
        protocol: cfg.tls ? 'amqps' : 'amqp',
        hostname: address,
        port: cfg.port,
        vhost: cfg.vhost,
        username: cfg.username,
        password: cfg.password ?? '',
        heartbeat: 30,
      },
      { timeout: cfg.connect_timeout_ms, servername: tlsServerName(cfg.host) },
    )
    .catch((err: unknown) => {
      // The broker closes the connection instead of opening the vhost; amqplib words it as a protocol surprise.
      if (err instanceof Error && /Expected ConnectionOpenOk; got <ConnectionClose/.test(err.message)) {
        throw new ConnectorError(
          `the broker refused vhost "${cfg.vhost}": it does not exist or "${cfg.username}" may not use it`,
          'config_error',
        );
      }
      throw err;
    });
  if (!signal) return opening;
  return new Promise<ChannelModel>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    opening.then(
      (connection) => {
        signal.removeEventListener('abort', onAbort);
        if (signal.aborted) void closeAmqp(connection);
        else resolve(connection);
      },
      (err: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(err);
      },
    );
  });
}

export async function closeAmqp(connection: ChannelModel): Promise<void> {
  connection.on('error', () => undefined);
  await Promise.race([connection.close(), new Promise((resolve) => setTimeout(resolve, CLOSE_GRACE_MS).unref())]).catch(
    () => undefined,
  );
}

/** AMQP reply codes that settings must fix: access refused (403), not found (404), precondition failed (406), not allowed (530). */
const CONFIG_REPLY_CODES = new Set([403, 404, 406, 530]);

export function classifyAmqpError(err: unknown): { error_class: ErrorClass; message: string } {
  if (err instanceof ConnectorError) return { error_class: err.errorClass, message: err.message };
  const code = (err as { code?: unknown } | null)?.code;
  const message = err instanceof Error && err.message !== '' ? err.message : String(err);
  if (typeof code === 'string' && isUnknownHostCode(code))
    return { error_class: 'config_error', message: `unknown host: ${message}` };
  if (typeof code === 'string' && isTransientNetCode(code)) return { error_class: 'transient_error', message };
  if (/ACCESS.REFUSED/i.test(message)) {
    return { error_class: 'config_error', message: `authentication or permission refused: ${message}` };
  }
  if (typeof code === 'number' && CONFIG_REPLY_CODES.has(code)) return { error_class: 'config_error', message };
  if (/\b(403|404|406|530)\b/.test(message)) return { error_class: 'config_error', message };
  return { error_class: 'transient_error', message };
}

export function toAmqpError(err: unknown, secrets: readonly string[], signal?: AbortSignal): unknown {
  if (signal?.aborted) return signal.reason;
  const { error_class, message } = classifyAmqpError(err);
  const code = (err as { code?: unknown } | null)?.code;
  return new ConnectorError(scrubSecrets(message, secrets), error_class, {
    code: typeof code === 'string' || typeof code === 'number' ? String(code) : undefined,
  });
}

export const amqpSecrets = (cfg: AmqpConfig): string[] => (cfg.password ? [cfg.password] : []);
