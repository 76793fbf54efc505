/**
 * Consumes a bounded batch from a queue: up to `max_messages`, stopping when none arrived for `wait_ms`. Each
 * yielded batch is acknowledged once the consumer asks for the next one (it has been handed over); messages of a
 * batch not handed over (early stop, failure) go back to the queue when the channel closes.
 */
import type { Channel, ConsumeMessage } from 'amqplib';
import type { ReadRequest, Row } from '../types.js';
import { decodeMessage } from '../messaging/message-json.js';
import { parseBoundedRead, requiredName } from '../messaging/message-options.js';
import type { AmqpConfig } from './amqp.config.js';
import { amqpSecrets, closeAmqp, connectAmqp, toAmqpError } from './connection.js';

const MAX_PREFETCH = 10_000;

/** Collects deliveries until `max` arrived, none arrived for `waitMs`, or the broker cancelled the consumer. */
async function collect(
  channel: Channel,
  queue: string,
  max: number,
  waitMs: number,
  signal?: AbortSignal,
): Promise<ConsumeMessage[]> {
  const messages: ConsumeMessage[] = [];
  let finish: () => void = () => undefined;
  const done = new Promise<void>((resolve) => (finish = resolve));
  let idle = setTimeout(finish, waitMs);
  const onAbort = () => finish();
  signal?.addEventListener('abort', onAbort, { once: true });
  const { consumerTag } = await channel.consume(
    queue,
    (msg) => {
      if (msg === null) return finish(); // cancelled by the broker (e.g. the queue was deleted)
      if (messages.length >= max) return; // arrived after we had enough: left unacked, requeued on close
      messages.push(msg);
      clearTimeout(idle);
      if (messages.length >= max) finish();
      else idle = setTimeout(finish, waitMs);
    },
    { noAck: false },
  );
  await done;
  clearTimeout(idle);
  signal?.removeEventListener('abort', onAbort);
  await channel.cancel(consumerTag);
  return messages;
}

export async function* consumeQueue(cfg: AmqpConfig, req: ReadRequest): AsyncGenerator<Row[]> {
  const { signal } = req;
  const opts = parseBoundedRead(req);
  const queue = requiredName(req, 'queue');
  const secrets = amqpSecrets(cfg);
  const connection = await connectAmqp(cfg, signal).catch((err: unknown) => {
    throw toAmqpError(err, secrets, signal);
  });
  connection.on('error', () => undefined); // surfaced by the next channel call
  try {
    const channel = await connection.createChannel();
    channel.on('error', () => undefined);
    await channel.prefetch(Math.min(opts.max_messages, MAX_PREFETCH));
    let remaining = opts.max_messages;
    while (remaining > 0) {
      const messages = await collect(channel, queue, Math.min(remaining, MAX_PREFETCH), opts.wait_ms, signal);
      signal?.throwIfAborted();
      if (messages.length === 0) break;
      remaining -= messages.length;
      for (let start = 0; start < messages.length; start += opts.batch_size) {
        const part = messages.slice(start, start + opts.batch_size);
        yield part.map((m) => decodeMessage(m.content));
        signal?.throwIfAborted();
        channel.ack(part[part.length - 1] as ConsumeMessage, true);
      }
    }
    await channel.close();
  } catch (err) {
    throw toAmqpError(err, secrets, signal);
  } finally {
    await closeAmqp(connection);
  }
}
