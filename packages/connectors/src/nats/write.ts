/** Publishes each row as a JSON message to `subject` through JetStream, waiting for every publish ack. */
import { jetstream } from '@nats-io/jetstream';
import { requiredName } from '../messaging/message-options.js';
import { encodeMessage } from '../messaging/message-json.js';
import type { Row, WriteRequest } from '../types.js';
import { closeNats, connectNats, toNatsError } from './connection.js';
import { natsSecrets, type NatsConfig } from './nats.config.js';

/** Publishes in flight at once: acks come back in parallel instead of one round trip per row. */
const IN_FLIGHT = 256;

export async function publishRows(
  cfg: NatsConfig,
  req: WriteRequest,
  batches: AsyncIterable<Row[]>,
): Promise<{ rows_written: number }> {
  const { signal } = req;
  const subject = requiredName(req, 'subject');
  const secrets = natsSecrets(cfg);
  const nc = await connectNats(cfg, signal).catch((err: unknown) => {
    throw toNatsError(err, secrets, signal);
  });
  const onAbort = () => void nc.close();
  signal?.addEventListener('abort', onAbort, { once: true });
  let written = 0;
  try {
    const js = jetstream(nc);
    for await (const batch of batches) {
      signal?.throwIfAborted();
      for (let i = 0; i < batch.length; i += IN_FLIGHT) {
        await Promise.all(batch.slice(i, i + IN_FLIGHT).map((row) => js.publish(subject, encodeMessage(row))));
      }
      written += batch.length;
    }
  } catch (err) {
    throw toNatsError(err, secrets, signal);
  } finally {
    signal?.removeEventListener('abort', onAbort);
    await closeNats(nc);
  }
  return { rows_written: written };
}
