/**
 * Subscribes to `topic` (wildcards allowed) with QoS 1 and collects up to `max_messages` that arrive within
 * `wait_ms` of subscribing. With `client_id` the session is persistent, so the broker keeps QoS 1 messages
 * published between runs for the next one; the client acknowledges on receipt (MQTT has no deferred ack).
 */
import type { MqttClient } from 'mqtt';
import { decodeMessage } from '../messaging/message-json.js';
import { parseBoundedRead, requiredName } from '../messaging/message-options.js';
import type { ReadRequest, Row } from '../types.js';
import { closeMqtt, connectMqtt, toMqttError } from './connection.js';
import { mqttSecrets, type MqttConfig } from './mqtt.config.js';

/** Gathers payloads from the moment the client exists; `until` settles at `max` rows or after `waitMs`. */
class Collector {
  readonly rows: Row[] = [];
  private settle: () => void = () => undefined;
  constructor(private readonly max: number) {}

  readonly onMessage = (_topic: string, payload: Buffer): void => {
    if (this.rows.length >= this.max) return;
    this.rows.push(decodeMessage(payload));
    if (this.rows.length >= this.max) this.settle();
  };

  until(client: MqttClient, waitMs: number, signal?: AbortSignal): Promise<Row[]> {
    return new Promise<Row[]>((resolve, reject) => {
      const done = (err?: unknown) => {
        clearTimeout(timer);
        client.off('close', onClose);
        signal?.removeEventListener('abort', onAbort);
        if (err === undefined) resolve(this.rows);
        // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- the close error or the abort reason, as it was
        else reject(err);
      };
      const onClose = () => done(new Error('the broker closed the connection'));
      const onAbort = () => done(signal?.reason);
      const timer = setTimeout(() => done(), waitMs);
      client.once('close', onClose);
      signal?.addEventListener('abort', onAbort, { once: true });
      this.settle = () => done();
      if (this.rows.length >= this.max) done();
    });
  }
}

export async function* subscribeTopic(cfg: MqttConfig, req: ReadRequest): AsyncGenerator<Row[]> {
  const { signal } = req;
  const opts = parseBoundedRead(req);
  const topic = requiredName(req, 'topic');
  const clientId = typeof req['client_id'] === 'string' && req['client_id'] !== '' ? req['client_id'] : undefined;
  const secrets = mqttSecrets(cfg);
  const collector = new Collector(opts.max_messages);
  const client = await connectMqtt(cfg, { clientId, onMessage: collector.onMessage }, signal).catch((err: unknown) => {
    throw toMqttError(err, secrets, signal);
  });
  try {
    const collecting = collector.until(client, opts.wait_ms, signal);
    const granted = await client.subscribeAsync(topic, { qos: 1 });
    if (granted.some((g) => g.qos === 128)) {
      collecting.catch(() => undefined);
      throw toMqttError(new Error(`the broker refused the subscription to "${topic}" (not authorized)`), secrets);
    }
    const rows = await collecting;
    for (let start = 0; start < rows.length; start += opts.batch_size) yield rows.slice(start, start + opts.batch_size);
  } catch (err) {
    throw toMqttError(err, secrets, signal);
  } finally {
    await closeMqtt(client);
  }
}
