/** Streams a query's rows out of DuckDB one chunk at a time, as plain JS values (result-rows.ts). */
import type { DuckDBConnection, DuckDBPreparedStatement } from '@duckdb/node-api';
import { ConnectorError } from '../connector-error.js';
import { batchSizeOf } from '../file/read.js';
import type { ReadRequest, Row } from '../types.js';
import { openDatabase, qualifiedTable, toDuckdbError } from './database.js';
import { rowBatches } from './result-rows.js';
import { prepareUserSql } from './user-sql.js';
import type { DuckdbConfig } from './duckdb.config.js';

/**
 * The read's SQL: the user's `query`, or ours over the quoted `table`. Both are checked as the tenant's SQL
 * (sourceStatement): a table name is the tenant's too, and `pg_catalog.pg_settings` or `main.duckdb_databases` names
 * DuckDB's own views (its settings, the file's path), which a read would otherwise export.
 */
export function sourceSql(cfg: DuckdbConfig, req: ReadRequest): { sql: string; subject: string } {
  if (typeof req.query === 'string' && req.query.trim() !== '') return { sql: req.query, subject: 'the query' };
  if (typeof req.table === 'string' && req.table !== '')
    return { sql: `select * from ${qualifiedTable(req.table, cfg.schema)}`, subject: 'the table' };
  throw new ConnectorError('a read needs a query or a table', 'config_error');
}

/** The source's statement prepared as checked (prepareUserSql), a refusal's message naming the query or the table. */
export async function sourceStatement(
  connection: DuckDBConnection,
  source: { sql: string; subject: string },
): Promise<DuckDBPreparedStatement> {
  return prepareUserSql(connection, source.sql, 'select').catch((err: unknown) => {
    throw err instanceof ConnectorError ? new ConnectorError(`${source.subject} ${err.message}`, 'config_error') : err;
  });
}

/** Yields batches of at most `batchSize` rows; the file stays open until the read ends or the consumer stops. */
export async function* readDuckdb(cfg: DuckdbConfig, req: ReadRequest): AsyncGenerator<Row[]> {
  const { signal } = req;
  const source = sourceSql(cfg, req);
  const batchSize = batchSizeOf(req);
  signal?.throwIfAborted();
  const db = await openDatabase(cfg, { mode: 'read', tenantId: req.tenantId, limits: req.duckdbLimits });
  const onAbort = () => db.connection.interrupt();
  signal?.addEventListener('abort', onAbort, { once: true });
  let prepared: DuckDBPreparedStatement | undefined;
  try {
    prepared = await sourceStatement(db.connection, source);
    yield* rowBatches(await prepared.stream(), batchSize, signal);
  } catch (err) {
    throw signal?.aborted ? signal.reason : toDuckdbError(err);
  } finally {
    signal?.removeEventListener('abort', onAbort);
    prepared?.destroySync();
    await db.close();
  }
}
