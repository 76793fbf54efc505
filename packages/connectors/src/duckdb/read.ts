/** Streams a query's rows out of DuckDB one chunk at a time, as plain JS values (result-rows.ts). */
import type { DuckDBPreparedStatement } from '@duckdb/node-api';
import { ConnectorError } from '../connector-error.js';
import { batchSizeOf } from '../file/read.js';
import type { ReadRequest, Row } from '../types.js';
import { openDatabase, qualifiedTable, toDuckdbError } from './database.js';
import { rowBatches } from './result-rows.js';
import { prepareUserSql } from './user-sql.js';
import type { DuckdbConfig } from './duckdb.config.js';

/** The read's SQL, and whether it is the user's (a `query`, checked as one SELECT) or ours (a quoted table name). */
export function sourceSql(cfg: DuckdbConfig, req: ReadRequest): { sql: string; own: boolean } {
  if (typeof req.query === 'string' && req.query.trim() !== '') return { sql: req.query, own: false };
  if (typeof req.table === 'string' && req.table !== '')
    return { sql: `select * from ${qualifiedTable(req.table, cfg.schema)}`, own: true };
  throw new ConnectorError('a read needs a query or a table', 'config_error');
}

/** Yields batches of at most `batchSize` rows; the file stays open until the read ends or the consumer stops. */
export async function* readDuckdb(cfg: DuckdbConfig, req: ReadRequest): AsyncGenerator<Row[]> {
  const { signal } = req;
  const { sql, own } = sourceSql(cfg, req);
  const batchSize = batchSizeOf(req);
  signal?.throwIfAborted();
  const db = await openDatabase(cfg, { mode: 'read', tenantId: req.tenantId, limits: req.duckdbLimits });
  const onAbort = () => db.connection.interrupt();
  signal?.addEventListener('abort', onAbort, { once: true });
  let prepared: DuckDBPreparedStatement | undefined;
  try {
    prepared = own
      ? await db.connection.prepare(sql)
      : await prepareUserSql(db.connection, sql, 'select').catch((err: unknown) => {
          throw err instanceof ConnectorError ? new ConnectorError(`the query ${err.message}`, 'config_error') : err;
        });
    yield* rowBatches(await prepared.stream(), batchSize, signal);
  } catch (err) {
    throw signal?.aborted ? signal.reason : toDuckdbError(err);
  } finally {
    signal?.removeEventListener('abort', onAbort);
    prepared?.destroySync();
    await db.close();
  }
}
