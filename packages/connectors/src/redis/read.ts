/**
 * Reads a bounded batch (`max_messages`) from a stream. With `group` it is a consumer group read (XREADGROUP,
 * the group created at the stream's start when missing; `consumer` names the reader, default `conduit`), waiting
 * up to `wait_ms` for new entries, and each batch is XACKed once handed over, so the next run continues after it.
 * Without a group the stream is read with XRANGE from `start_id` (default its first entry) without waiting.
 */
import type { Redis } from 'ioredis';
import { parseBoundedRead, requiredName } from '../messaging/message-options.js';
import type { ReadRequest, Row } from '../types.js';
import { closeRedis, connectRedis, toRedisError } from './connection.js';
import { redisSecrets, type RedisConfig } from './redis.config.js';
import { entryToRow, type StreamEntry } from './stream-entries.js';

async function ensureGroup(client: Redis, stream: string, group: string): Promise<void> {
  try {
    await client.xgroup('CREATE', stream, group, '0', 'MKSTREAM');
  } catch (err) {
    if (!(err instanceof Error && err.message.startsWith('BUSYGROUP'))) throw err;
  }
}

async function* groupBatches(client: Redis, stream: string, req: ReadRequest, group: string): AsyncGenerator<Row[]> {
  const { max_messages, wait_ms, batch_size } = parseBoundedRead(req);
  const consumer = typeof req['consumer'] === 'string' && req['consumer'] !== '' ? req['consumer'] : 'conduit';
  await ensureGroup(client, stream, group);
  let remaining = max_messages;
  while (remaining > 0) {
    const want = Math.min(remaining, batch_size);
    const reply = (await client.xreadgroup(
      'GROUP',
      group,
      consumer,
      'COUNT',
      want,
      'BLOCK',
      Math.max(1, wait_ms),
      'STREAMS',
      stream,
      '>',
    )) as [string, StreamEntry[]][] | null;
    const entries = reply?.[0]?.[1] ?? [];
    if (entries.length === 0) break;
    yield entries.map(([, fields]) => entryToRow(fields));
    req.signal?.throwIfAborted();
    await client.xack(stream, group, ...entries.map(([id]) => id));
    remaining -= entries.length;
  }
}

async function* rangeBatches(client: Redis, stream: string, req: ReadRequest): AsyncGenerator<Row[]> {
  const { max_messages, batch_size } = parseBoundedRead(req);
  let start = typeof req['start_id'] === 'string' && req['start_id'] !== '' ? req['start_id'] : '-';
  let remaining = max_messages;
  while (remaining > 0) {
    const want = Math.min(remaining, batch_size);
    const entries = (await client.xrange(stream, start, '+', 'COUNT', want)) as StreamEntry[];
    if (entries.length > 0) yield entries.map(([, fields]) => entryToRow(fields));
    remaining -= entries.length;
    if (entries.length < want) break;
    start = `(${(entries[entries.length - 1] as StreamEntry)[0]}`;
  }
}

export async function* readStream(cfg: RedisConfig, req: ReadRequest): AsyncGenerator<Row[]> {
  const { signal } = req;
  const stream = requiredName(req, 'stream');
  const secrets = redisSecrets(cfg);
  const client = await connectRedis(cfg, signal).catch((err: unknown) => {
    throw toRedisError(err, secrets, signal);
  });
  const onAbort = () => client.disconnect();
  signal?.addEventListener('abort', onAbort, { once: true });
  try {
    const group = req['group'];
    if (typeof group === 'string' && group !== '') yield* groupBatches(client, stream, req, group);
    else yield* rangeBatches(client, stream, req);
  } catch (err) {
    throw toRedisError(err, secrets, signal);
  } finally {
    signal?.removeEventListener('abort', onAbort);
    await closeRedis(client);
  }
}
