/** Streams a query's rows in batches (mysql2's row stream with backpressure), so memory stays bounded. */
import mysql from 'mysql2';
import { ConnectorError } from '../connector-error.js';
import type { ReadRequest, Row } from '../types.js';
import { openMysqlSession } from './pool.js';
import { toMysqlConnectorError } from './mysql-errors.js';
import type { MysqlConfig } from './mysql.config.js';

export const DEFAULT_READ_BATCH_SIZE = 5000;

/** `query` (trailing semicolons dropped; `?` placeholders take `req.params`) or every row of `table` (`db.table` allowed). */
export function sourceSql(req: ReadRequest): string {
  if (typeof req.query === 'string' && req.query.trim() !== '') return req.query.trim().replace(/[;\s]+$/, '');
  if (typeof req.table === 'string' && req.table !== '') return `select * from ${mysql.escapeId(req.table)}`;
  throw new ConnectorError('a read needs a query or a table', 'config_error');
}

function batchSizeOf(req: ReadRequest): number {
  const size = req.batchSize ?? DEFAULT_READ_BATCH_SIZE;
  if (!Number.isInteger(size) || size < 1)
    throw new ConnectorError('batchSize must be a positive integer', 'config_error');
  return size;
}

export function paramsOf(req: ReadRequest): unknown[] {
  const params = req['params'];
  if (params === undefined) return [];
  if (!Array.isArray(params)) throw new ConnectorError('params must be an array', 'config_error');
  return params;
}

/**
 * Yields batches of at most `batchSize` rows. Stops and closes the connection when the consumer stops early or
 * `req.signal` aborts (then it throws the signal's reason). Other failures are ConnectorErrors.
 */
export async function* readMysqlRows(cfg: MysqlConfig, req: ReadRequest): AsyncGenerator<Row[]> {
  const { signal } = req;
  const sql = sourceSql(req);
  const batchSize = batchSizeOf(req);
  const params = paramsOf(req);
  const session = await openMysqlSession(cfg, req).catch((err: unknown) => {
    throw toMysqlConnectorError(err, signal);
  });
  const { connection } = session;
  const stream = connection.query(sql, params).stream({ highWaterMark: Math.min(batchSize, 10_000) });
  let finished = false;
  try {
    let batch: Row[] = [];
    for await (const row of stream as AsyncIterable<Row>) {
      batch.push(row);
      if (batch.length >= batchSize) {
        signal?.throwIfAborted();
        yield batch;
        batch = [];
      }
    }
    signal?.throwIfAborted();
    if (batch.length > 0) yield batch;
    finished = true;
  } catch (err) {
    throw signal?.aborted ? signal.reason : toMysqlConnectorError(err, signal);
  } finally {
    stream.destroy();
    // A consumer that stops early leaves unread rows on the wire: cut the connection rather than drain them.
    await session.close(finished ? 'finished' : 'stopped');
  }
}
