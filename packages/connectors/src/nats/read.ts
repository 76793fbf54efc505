/**
 * Fetches a bounded batch from a JetStream stream: up to `max_messages`, each fetch waiting at most `wait_ms`
 * (at least 1 s, the client's floor). With `consumer` the durable consumer of that name is used (created with
 * explicit acks when missing) and each batch is acknowledged once handed over, so the next run continues after
 * it; without one an ordered consumer reads the stream from its start (optionally only `subject`) without acks.
 */
import { AckPolicy, DeliverPolicy, jetstream, jetstreamManager, type Consumer, type JsMsg } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import { decodeMessage } from '../messaging/message-json.js';
import { parseBoundedRead, requiredName } from '../messaging/message-options.js';
import type { ReadRequest, Row } from '../types.js';
import { closeNats, connectNats, toNatsError } from './connection.js';
import { natsSecrets, type NatsConfig } from './nats.config.js';

const MIN_EXPIRES_MS = 1000;

async function consumerFor(
  nc: NatsConnection,
  req: ReadRequest,
  stream: string,
): Promise<{ consumer: Consumer; acks: boolean }> {
  const js = jetstream(nc);
  const subject = typeof req['subject'] === 'string' && req['subject'] !== '' ? req['subject'] : undefined;
  const durable = req['consumer'];
  if (typeof durable !== 'string' || durable === '') {
    return { consumer: await js.consumers.get(stream, subject ? { filter_subjects: subject } : {}), acks: false };
  }
  const jsm = await jetstreamManager(nc);
  const exists = await jsm.consumers.info(stream, durable).then(
    () => true,
    (err: unknown) => {
      if (err instanceof Error && /consumer not found/i.test(err.message)) return false;
      throw err;
    },
  );
  if (!exists) {
    await jsm.consumers.add(stream, {
      durable_name: durable,
      ack_policy: AckPolicy.Explicit,
      deliver_policy: DeliverPolicy.All,
      ...(subject ? { filter_subject: subject } : {}),
    });
  }
  return { consumer: await js.consumers.get(stream, durable), acks: true };
}

async function fetchSome(consumer: Consumer, max: number, waitMs: number): Promise<JsMsg[]> {
  const messages: JsMsg[] = [];
  const fetched = await consumer.fetch({ max_messages: max, expires: Math.max(MIN_EXPIRES_MS, waitMs) });
  for await (const m of fetched) messages.push(m);
  return messages;
}

export async function* fetchFromStream(cfg: NatsConfig, req: ReadRequest): AsyncGenerator<Row[]> {
  const { signal } = req;
  const opts = parseBoundedRead(req);
  const stream = requiredName(req, 'stream');
  const secrets = natsSecrets(cfg);
  const nc = await connectNats(cfg, signal).catch((err: unknown) => {
    throw toNatsError(err, secrets, signal);
  });
  const onAbort = () => void nc.close();
  signal?.addEventListener('abort', onAbort, { once: true });
  try {
    const { consumer, acks } = await consumerFor(nc, req, stream);
    let remaining = opts.max_messages;
    while (remaining > 0) {
      const want = Math.min(remaining, opts.batch_size);
      const messages = await fetchSome(consumer, want, opts.wait_ms);
      signal?.throwIfAborted();
      if (messages.length > 0) {
        yield messages.map((m) => decodeMessage(m.data));
        signal?.throwIfAborted();
        if (acks) for (const m of messages) m.ack();
      }
      remaining -= messages.length;
      if (messages.length < want) break;
    }
  } catch (err) {
    throw toNatsError(err, secrets, signal);
  } finally {
    signal?.removeEventListener('abort', onAbort);
    await closeNats(nc);
  }
}
