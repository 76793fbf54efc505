/**
 * Writes batches with multi-row INSERTs of up to ~1 MB of SQL each, in one transaction. `overwrite` deletes the
 * table's rows first (DELETE, not TRUNCATE, which would commit); `upsert` uses ON DUPLICATE KEY UPDATE, so the
 * table's primary or unique key decides conflicts (the request's `key` columns must be among the rows' columns).
 */
import mysql from 'mysql2';
import type { Connection } from 'mysql2/promise';
import { ConnectorError } from '../connector-error.js';
import { columnsOf } from '../postgres/copy-csv.js';
import type { Row, WriteRequest } from '../types.js';
import { openMysqlSession, type SessionEnd } from './pool.js';
import { toMysqlConnectorError } from './mysql-errors.js';
import type { MysqlConfig } from './mysql.config.js';

const STATEMENT_BYTES = 1_000_000;

export async function writeMysqlRows(
  cfg: MysqlConfig,
  req: WriteRequest,
  batches: AsyncIterable<Row[]>,
): Promise<{ rows_written: number }> {
  const { signal } = req;
  const target = mysql.escapeId(req.table);
  const iterator = batches[Symbol.asyncIterator]();
  const first = await firstNonEmptyBatch(iterator);
  if (!first && req.mode !== 'overwrite') return { rows_written: 0 };
  const columns = first ? columnsOf(first) : [];
  if (req.mode === 'upsert') checkUpsertKey(req, columns);

  const session = await openMysqlSession(cfg, req).catch((err: unknown) => {
    throw toMysqlConnectorError(err, signal);
  });
  const connection = session.connection.promise();
  let end: SessionEnd = 'failed';
  try {
    await connection.query('start transaction');
    if (req.mode === 'overwrite') await connection.query(`delete from ${target}`);
    let rowsWritten = 0;
    if (first) {
      const head = insertHead(target, columns, req.mode);
      const tail = upsertTail(columns, req.mode === 'upsert' ? (req.key ?? []) : null);
      let batch: Row[] | undefined = first;
      while (batch) {
        rowsWritten += await insertBatch(connection, head, tail, columns, batch);
        signal?.throwIfAborted();
        batch = await nextNonEmptyBatch(iterator);
      }
    }
    await connection.query('commit');
    end = 'finished';
    return { rows_written: rowsWritten };
  } catch (err) {
    await iterator.return?.();
    // Closing without commit makes the server roll the transaction back.
    throw signal?.aborted ? signal.reason : toMysqlConnectorError(err, signal);
  } finally {
    await session.close(end);
  }
}

async function firstNonEmptyBatch(iterator: AsyncIterator<Row[]>): Promise<Row[] | undefined> {
  return nextNonEmptyBatch(iterator);
}

async function nextNonEmptyBatch(iterator: AsyncIterator<Row[]>): Promise<Row[] | undefined> {
  for (;;) {
    const next = await iterator.next();
    if (next.done) return undefined;
    if (next.value.length > 0) return next.value;
  }
}

function checkUpsertKey(req: WriteRequest, columns: readonly string[]): void {
  const key = req.key ?? [];
  if (key.length === 0) throw new ConnectorError('upsert needs a key', 'config_error');
  const missing = key.filter((k) => !columns.includes(k));
  if (columns.length > 0 && missing.length > 0) {
    throw new ConnectorError(`upsert key column(s) ${missing.join(', ')} not among the rows' columns`, 'config_error');
  }
}

function insertHead(target: string, columns: readonly string[], mode: WriteRequest['mode']): string {
  const keyword = mode === 'upsert' && columns.length === 0 ? 'insert ignore' : 'insert';
  return `${keyword} into ${target} (${columns.map((c) => mysql.escapeId(c)).join(', ')}) values `;
}

/** For upsert: every non-key column takes the incoming value; with only key columns, duplicates are ignored. */
function upsertTail(columns: readonly string[], key: readonly string[] | null): string {
  if (key === null) return '';
  const updates = columns
    .filter((c) => !key.includes(c))
    .map((c) => `${mysql.escapeId(c)} = values(${mysql.escapeId(c)})`);
  const self = mysql.escapeId(key[0] ?? columns[0] ?? '');
  return ` on duplicate key update ${updates.length > 0 ? updates.join(', ') : `${self} = ${self}`}`;
}

/** Inserts one batch in as few statements as fit in STATEMENT_BYTES; answers the rows inserted. */
async function insertBatch(
  connection: Connection,
  head: string,
  tail: string,
  columns: readonly string[],
  rows: readonly Row[],
): Promise<number> {
  const known = new Set(columns);
  let tuples: string[] = [];
  let bytes = 0;
  const flush = async () => {
    if (tuples.length === 0) return;
    await connection.query(head + tuples.join(', ') + tail);
    tuples = [];
    bytes = 0;
  };
  for (const row of rows) {
    for (const key of Object.keys(row)) {
      if (!known.has(key))
        throw new ConnectorError(`row has column "${key}" that the first batch did not have`, 'config_error');
    }
    const tuple = mysql.format('(?)', [columns.map((c) => toSqlValue(row[c]))], false, 'Z');
    tuples.push(tuple);
    bytes += tuple.length;
    if (bytes >= STATEMENT_BYTES) await flush();
  }
  await flush();
  return rows.length;
}

/** mysql2 would expand objects into `key = value` lists and arrays into lists: write them as JSON instead. */
export function toSqlValue(value: unknown): mysql.SqlValue {
  if (value === undefined || value === null) return null;
  if (typeof value === 'bigint') return value.toString();
  if (typeof value === 'function' || typeof value === 'symbol') {
    throw new ConnectorError(`cannot write a value of type ${typeof value}`, 'config_error');
  }
  if (typeof value === 'object') {
    if (value instanceof Date) {
      if (Number.isNaN(value.getTime())) throw new ConnectorError('cannot write an invalid Date', 'config_error');
      return value;
    }
    if (value instanceof Uint8Array) return Buffer.from(value.buffer, value.byteOffset, value.byteLength);
    return JSON.stringify(value);
  }
  // What is left after the checks above: a string, number or boolean.
  return value as string | number | boolean;
}
