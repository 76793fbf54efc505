/** Publishes each row as a JSON message to `topic` with QoS 1, waiting for every PUBACK (`retain` optional). */
import { requiredName } from '../messaging/message-options.js';
import { encodeMessage } from '../messaging/message-json.js';
import type { Row, WriteRequest } from '../types.js';
import { closeMqtt, connectMqtt, toMqttError } from './connection.js';
import { mqttSecrets, type MqttConfig } from './mqtt.config.js';

/** Publishes in flight at once (within the broker's usual receive maximum). */
const IN_FLIGHT = 100;

export async function publishRows(
  cfg: MqttConfig,
  req: WriteRequest,
  batches: AsyncIterable<Row[]>,
): Promise<{ rows_written: number }> {
  const { signal } = req;
  const topic = requiredName(req, 'topic');
  const retain = req['retain'] === true;
  const secrets = mqttSecrets(cfg);
  const client = await connectMqtt(cfg, {}, signal).catch((err: unknown) => {
    throw toMqttError(err, secrets, signal);
  });
  const onAbort = () => client.end(true);
  signal?.addEventListener('abort', onAbort, { once: true });
  let written = 0;
  try {
    for await (const batch of batches) {
      signal?.throwIfAborted();
      for (let i = 0; i < batch.length; i += IN_FLIGHT) {
        await Promise.all(
          batch
            .slice(i, i + IN_FLIGHT)
            .map((row) => client.publishAsync(topic, encodeMessage(row), { qos: 1, retain })),
        );
      }
      written += batch.length;
    }
  } catch (err) {
    throw toMqttError(err, secrets, signal);
  } finally {
    signal?.removeEventListener('abort', onAbort);
    await closeMqtt(client);
  }
  return { rows_written: written };
}
