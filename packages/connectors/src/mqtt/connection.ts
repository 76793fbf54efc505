/** Opening and closing MQTT clients, and turning their failures into ConnectorErrors without secrets. */
import { randomUUID } from 'node:crypto';
import mqtt, { type MqttClient } from 'mqtt';
import { scrubSecrets } from '../secret-scrub.js';
import { ConnectorError } from '../connector-error.js';
import { isTransientNetCode, isUnknownHostCode } from '../network-steps.js';
import { checkedAddress, tlsServerName } from '../network/target-check.js';
import type { ErrorClass } from '../types.js';
import type { MqttConfig } from './mqtt.config.js';

export interface SessionOptions {
  /** A fixed client id with a persistent session (the broker keeps QoS 1 messages between runs); default a fresh id, clean session. */
  clientId?: string;
  /** Attached before connecting: a persistent session's stored messages arrive right after CONNACK. */
  onMessage?: (topic: string, payload: Buffer) => void;
}

/**
 * Connects once (no reconnects) to the address the network policy checked (resolved now); TLS verifies the
 * configured host name. An abort of `signal` ends the client.
 */
export async function connectMqtt(
  cfg: MqttConfig,
  session: SessionOptions = {},
  signal?: AbortSignal,
): Promise<MqttClient> {
  signal?.throwIfAborted();
  const address = await checkedAddress({ connectorType: 'mqtt', host: cfg.host, port: cfg.port });
  return new Promise<MqttClient>((resolve, reject) => {
    const client = mqtt.connect({
      protocol: cfg.tls ? 'mqtts' : 'mqtt',
      host: address,
      servername: tlsServerName(cfg.host),
      port: cfg.port,
      username: cfg.username,
      password: cfg.password,
      clientId: session.clientId ?? `conduit-${randomUUID()}`,
      clean: session.clientId === undefined,
      connectTimeout: cfg.connect_timeout_ms,
      reconnectPeriod: 0,
    });
    if (session.onMessage) client.on('message', session.onMessage);
    const fail = (err: unknown) => {
      cleanup();
      client.end(true);
      reject(err);
    };
    const onAbort = () => fail(signal?.reason);
    const onClose = () => fail(new Error('the broker closed the connection'));
    const cleanup = () => {
      signal?.removeEventListener('abort', onAbort);
      client.off('error', fail);
      client.off('close', onClose);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    client.once('error', fail);
    client.once('close', onClose);
    client.once('connect', () => {
      cleanup();
      client.on('error', () => undefined); // later errors surface through the pending operation
      resolve(client);
    });
  });
}

export async function closeMqtt(client: MqttClient): Promise<void> {
  await Promise.race([client.endAsync(), new Promise((resolve) => setTimeout(resolve, 1000).unref())]).catch(
    () => undefined,
  );
  client.end(true);
}

/** CONNACK codes 4 (bad user name or password) and 5 (not authorized), v3 and v5 (134, 135). */
const AUTH_CODES = new Set([4, 5, 134, 135]);

export function classifyMqttError(err: unknown): { error_class: ErrorClass; message: string } {
  if (err instanceof ConnectorError) return { error_class: err.errorClass, message: err.message };
  const code = (err as { code?: unknown } | null)?.code;
  const message = err instanceof Error && err.message !== '' ? err.message : String(err);
  if (typeof code === 'string' && isUnknownHostCode(code))
    return { error_class: 'config_error', message: `unknown host: ${message}` };
  if (typeof code === 'string' && isTransientNetCode(code)) return { error_class: 'transient_error', message };
  if (
    (typeof code === 'number' && AUTH_CODES.has(code)) ||
    /not authori[sz]ed|bad user ?name or password/i.test(message)
  ) {
    return { error_class: 'config_error', message: `authentication or permission refused: ${message}` };
  }
  return { error_class: 'transient_error', message };
}

export function toMqttError(err: unknown, secrets: readonly string[], signal?: AbortSignal): unknown {
  if (signal?.aborted) return signal.reason;
  const { error_class, message } = classifyMqttError(err);
  return new ConnectorError(scrubSecrets(message, secrets), error_class);
}
