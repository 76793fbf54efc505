/**
 * The typed MySQL sink (`writeFromTable`): maps the DuckDB table's types to MySQL's, makes the target ready (created
 * when missing, with the key as primary key; new columns only with add_columns), then writes every row in one
 * transaction: append, overwrite (DELETE first, which unlike TRUNCATE does not commit) or upsert (ON DUPLICATE KEY
 * UPDATE). A table the write created is dropped again when the write fails.
 */
import { ConnectorError } from '../connector-error.js';
import { quoteIdent, toDuckdbError } from '../duckdb/database.js';
import type { DuckDBTable, WriteRequest } from '../types.js';
import { openMysqlSession, type SessionEnd } from './pool.js';
import { writeColumnsOf } from './duckdb-to-mysql-types.js';
import { toMysqlConnectorError } from './mysql-errors.js';
import type { MysqlConfig } from './mysql.config.js';
import { dropCreated, prepareTarget, targetName } from './target-table.js';
import { insertInBatches, loadWithInfile, localInfileAllowed } from './transfer-rows.js';
import { readAll } from '../duckdb/read-all.js';

export interface TypedWriteOptions {
  /** `auto` (default): LOAD DATA LOCAL where the server allows it, else INSERTs; `insert`: always INSERTs. */
  transfer?: 'auto' | 'insert';
}

function checkKey(req: WriteRequest, names: readonly string[]): void {
  const key = req.key ?? [];
  if (req.mode === 'upsert' && key.length === 0) throw new ConnectorError('upsert needs a key', 'config_error');
  const missing = key.filter((k) => !names.includes(k));
  if (missing.length > 0)
    throw new ConnectorError(`key column(s) ${missing.join(', ')} not among the input's columns`, 'config_error');
}

async function countRows(source: DuckDBTable): Promise<number> {
  try {
    const result = await readAll(source.connection.run(`select count(*)::BIGINT from ${quoteIdent(source.table)}`));
    return Number(result.getRows()[0]?.[0] ?? 0);
  } catch (err) {
    throw toDuckdbError(err);
  }
}

export async function writeFromTable(
  cfg: MysqlConfig,
  req: WriteRequest,
  source: DuckDBTable,
  options: TypedWriteOptions = {},
): Promise<{ rows_written: number }> {
  const { signal } = req;
  const target = targetName(req.table);
  const columns = await writeColumnsOf(source.connection, source.table).catch((err: unknown) => {
    throw toDuckdbError(err);
  });
  checkKey(
    req,
    columns.map((c) => c.name),
  );
  const rows = await countRows(source);

  const session = await openMysqlSession(cfg, req).catch((err: unknown) => {
    throw toMysqlConnectorError(err, signal);
  });
  const connection = session.connection.promise();
  let end: SessionEnd = 'failed';
  let created = false;
  try {
    // DATETIME values are written as UTC text; a TIMESTAMP column of an existing table reads them as UTC too.
    await connection.query("set time_zone = '+00:00'");
    const prepared = await prepareTarget(connection, source.connection, source.table, target, columns, req);
    created = prepared.created;
    const bulk = options.transfer !== 'insert' && (await localInfileAllowed(connection));
    await connection.query('start transaction');
    if (req.mode === 'overwrite') await connection.query(`delete from ${target.quoted}`);
    const transfer = {
      target: target.quoted,
      columns: prepared.columns,
      upsertKey: req.mode === 'upsert' ? (req.key ?? []) : null,
      signal,
    };
    if (rows > 0)
      await (bulk ? loadWithInfile(connection, source, transfer) : insertInBatches(connection, source, transfer));
    signal?.throwIfAborted();
    await connection.query('commit');
    end = 'finished';
    return { rows_written: rows };
  } catch (err) {
    if (!signal?.aborted) {
      await connection.query('rollback').catch(() => undefined);
      if (created) await dropCreated(connection, target);
    }
    throw signal?.aborted ? signal.reason : toMysqlConnectorError(err, signal);
  } finally {
    await session.close(end);
  }
}
