/** Streams a query's rows out of DuckDB one chunk at a time, as plain JS values. */
import duckdb, {
  type DuckDBPreparedStatement,
  type DuckDBType,
  type DuckDBValue,
  type DuckDBValueConverter,
  type Json,
} from '@duckdb/node-api';
import { ConnectorError } from '../connector-error.js';
import { batchSizeOf } from '../file/read.js';
import type { ReadRequest, Row } from '../types.js';
import { openDatabase, qualifiedTable, toDuckdbError } from './database.js';
import { prepareUserSql } from './user-sql.js';
import type { DuckdbConfig } from './duckdb.config.js';

const { DuckDBTypeId, JsonDuckDBValueConverter, dateFromTimestampTZValue, dateFromTimestampValue } = duckdb;

/** 64-bit and wider integers as numbers when safe (else decimal strings), timestamps as Dates, the rest as JSON. */
const plainValue: DuckDBValueConverter<Json | Date> = (value: DuckDBValue, type: DuckDBType, converter) => {
  if (value === null) return null;
  switch (type.typeId) {
    case DuckDBTypeId.BIGINT:
    case DuckDBTypeId.UBIGINT:
    case DuckDBTypeId.HUGEINT:
    case DuckDBTypeId.UHUGEINT: {
      const big = value as bigint;
      return big >= BigInt(Number.MIN_SAFE_INTEGER) && big <= BigInt(Number.MAX_SAFE_INTEGER)
        ? Number(big)
        : big.toString();
    }
    case DuckDBTypeId.TIMESTAMP:
    case DuckDBTypeId.TIMESTAMP_MS:
    case DuckDBTypeId.TIMESTAMP_S:
    case DuckDBTypeId.TIMESTAMP_NS:
      return dateFromTimestampValue(value as never);
    case DuckDBTypeId.TIMESTAMP_TZ:
      return dateFromTimestampTZValue(value as never);
    default:
      return JsonDuckDBValueConverter(value, type, converter as DuckDBValueConverter<Json>);
  }
};

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
  const db = await openDatabase(cfg, { mode: 'read', tenantId: req.tenantId });
  const onAbort = () => db.connection.interrupt();
  signal?.addEventListener('abort', onAbort, { once: true });
  let prepared: DuckDBPreparedStatement | undefined;
  try {
    prepared = own
      ? await db.connection.prepare(sql)
      : await prepareUserSql(db.connection, sql, 'select').catch((err: unknown) => {
          throw err instanceof ConnectorError ? new ConnectorError(`the query ${err.message}`, 'config_error') : err;
        });
    const result = await prepared.stream();
    const names = result.deduplicatedColumnNames();
    let batch: Row[] = [];
    for (;;) {
      signal?.throwIfAborted();
      const chunk = await result.fetchChunk();
      if (!chunk || chunk.rowCount === 0) break;
      const columns = chunk.convertColumns(plainValue);
      for (let r = 0; r < chunk.rowCount; r++) {
        const row: Row = {};
        for (let c = 0; c < names.length; c++) row[names[c]!] = columns[c]![r] ?? null;
        batch.push(row);
        if (batch.length >= batchSize) {
          yield batch;
          batch = [];
        }
      }
    }
    if (batch.length > 0) yield batch;
  } catch (err) {
    throw signal?.aborted ? signal.reason : toDuckdbError(err);
  } finally {
    signal?.removeEventListener('abort', onAbort);
    prepared?.destroySync();
    db.close();
  }
}
