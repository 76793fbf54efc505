/** Appends each row to `stream` with XADD (one pipeline per batch); `maxlen` trims the stream approximately. */
import { ConnectorError } from '../connector-error.js';
import { requiredName } from '../messaging/message-options.js';
import type { Row, WriteRequest } from '../types.js';
import { closeRedis, connectRedis, toRedisError } from './connection.js';
import { redisSecrets, type RedisConfig } from './redis.config.js';
import { rowToFields } from './stream-entries.js';

function maxlenOf(req: WriteRequest): number | undefined {
  const maxlen = req['maxlen'];
  if (maxlen === undefined) return undefined;
  if (typeof maxlen !== 'number' || !Number.isInteger(maxlen) || maxlen < 1) {
    throw new ConnectorError('maxlen must be a positive integer', 'config_error');
  }
  return maxlen;
}

export async function appendRows(
  cfg: RedisConfig,
  req: WriteRequest,
  batches: AsyncIterable<Row[]>,
): Promise<{ rows_written: number }> {
  const { signal } = req;
  const stream = requiredName(req, 'stream');
  const maxlen = maxlenOf(req);
  const secrets = redisSecrets(cfg);
  const client = await connectRedis(cfg, signal).catch((err: unknown) => {
    throw toRedisError(err, secrets, signal);
  });
  const onAbort = () => client.disconnect();
  signal?.addEventListener('abort', onAbort, { once: true });
  let written = 0;
  try {
    for await (const batch of batches) {
      signal?.throwIfAborted();
      const pipeline = client.pipeline();
      for (const row of batch) {
        if (maxlen === undefined) pipeline.xadd(stream, '*', ...rowToFields(row));
        else pipeline.xadd(stream, 'MAXLEN', '~', maxlen, '*', ...rowToFields(row));
      }
      const results = (await pipeline.exec()) ?? [];
      const failed = results.find(([err]) => err)?.[0];
      if (failed) throw failed;
      written += batch.length;
    }
  } catch (err) {
    throw toRedisError(err, secrets, signal);
  } finally {
    signal?.removeEventListener('abort', onAbort);
    await closeRedis(client);
  }
  return { rows_written: written };
}
