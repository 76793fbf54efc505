/**
 * The typed DuckDB sink: the run's DuckDB copies the input table into a Parquet file of the scratch folder; the
 * connector's file, opened in a file worker (file-worker/) and allowed to read exactly that file, stages it with the input's exact types and loads it with the
 * row sink's semantics (write.ts: append, overwrite, upsert with the last row of a key winning), all in one
 * transaction. A missing table is created with the input's types and an upsert's key as its primary key, unless
 * `create: false`; a column the target lacks fails naming it unless `schema_evolution: "add_columns"`.
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { ConnectorError } from '../connector-error.js';
import type { ColumnSpec, DuckDBTable, WriteRequest } from '../types.js';
import { quoteIdent, toDuckdbError } from './database.js';
import type { DuckdbConfig } from './duckdb.config.js';
import { fileWorkBase, fileWriteOf, inWorker } from './file-worker/workers.js';
import { copyToParquetSql, describeColumns, importSelect, sqlString } from './parquet-transfer.js';
import { checkedLoadKey, inLoadTransaction, load, ORDINAL, STAGING, tableExists } from './write.js';
import { removeFile } from '../remove-file.js';
import { readAll } from './read-all.js';

export async function writeFromTable(
  cfg: DuckdbConfig,
  req: WriteRequest,
  source: DuckDBTable,
): Promise<{ rows_written: number }> {
  const { signal } = req;
  const key = checkedLoadKey(cfg, req);
  const file = join(source.scratchDir, `duckdb-write-${randomUUID()}.parquet`);
  try {
    const columns = await exportTable(source, file);
    const missingKey = key.filter((k) => !columns.some((c) => c.name === k));
    if (missingKey.length > 0)
      throw new ConnectorError(`key column(s) ${missingKey.join(', ')} not among the input's columns`, 'config_error');
    signal?.throwIfAborted();
    return await inWorker<{ rows_written: number }>(
      {
        op: 'load-parquet',
        cfg,
        ...fileWorkBase(req.tenantId, req.duckdbLimits),
        write: fileWriteOf(req),
        columns,
        file,
      },
      signal,
    );
  } finally {
    await removeFile(file);
  }
}

/** In the file worker: the Parquet file `file` of `columns` loaded into the table as `req` says, in one transaction. */
export async function loadParquetIntoFile(
  cfg: DuckdbConfig,
  req: WriteRequest,
  columns: readonly ColumnSpec[],
  file: string,
): Promise<{ rows_written: number }> {
  return inLoadTransaction(cfg, req, file, async ({ connection, target, key }) => {
    await connection.run(
      `create temporary table ${STAGING} as select ${importSelect(columns)}, file_row_number as ${quoteIdent(ORDINAL)} ` +
        `from read_parquet(${sqlString(file)}, file_row_number = true)`,
    );
    const exists = await tableExists(connection, target);
    if (!exists && req.create === false)
      throw new ConnectorError(`table ${req.table} does not exist (the sink has create: false)`, 'config_error');
    if (exists) await addMissingColumns(connection, target, req, columns);
    // Created with the input's types even when it has no rows (the row sink has no types to go by then).
    if (!exists) await createTable(connection, target, columns, key);
    const rows = await stagedRows(connection);
    await load(connection, target, req.mode, key, rows > 0);
    return { rows_written: rows };
  });
}

/** The input's columns with their types, written to `file` by the run's DuckDB. */
async function exportTable(source: DuckDBTable, file: string): Promise<ColumnSpec[]> {
  try {
    const sql = `select * from ${quoteIdent(source.table)}`;
    const columns = await describeColumns(source.connection, sql);
    await source.connection.run(copyToParquetSql(sql, columns, file));
    return columns;
  } catch (err) {
    throw toDuckdbError(err);
  }
}

/** The input's columns and types; an upsert's key is the primary key, as the PostgreSQL and MySQL sinks make it. */
async function createTable(
  connection: DuckDBConnection,
  target: string,
  columns: readonly ColumnSpec[],
  key: readonly string[],
): Promise<void> {
  const definitions = columns.map((c) => `${quoteIdent(c.name)} ${c.type}`);
  if (key.length > 0) definitions.push(`primary key (${key.map(quoteIdent).join(', ')})`);
  await connection.run(`create table ${target} (${definitions.join(', ')})`);
}

async function stagedRows(connection: DuckDBConnection): Promise<number> {
  const reader = await readAll(connection.run(`select count(*)::BIGINT from ${STAGING}`));
  return Number(reader.getRows()[0]?.[0] ?? 0);
}

/** Columns of the input the target lacks: added with the input's type under add_columns, else the node fails naming them. */
async function addMissingColumns(
  connection: DuckDBConnection,
  target: string,
  req: WriteRequest,
  columns: readonly ColumnSpec[],
): Promise<void> {
  const reader = await readAll(connection.run(`select column_name from (describe ${target})`));
  // DuckDB matches column names regardless of case (insert by name too).
  const existing = new Set(reader.getRows().map((row) => String(row[0]).toLowerCase()));
  const missing = columns.filter((c) => !existing.has(c.name.toLowerCase()));
  if (missing.length === 0) return;
  if (req.schema_evolution !== 'add_columns') {
    const names = missing.map((c) => `"${c.name}" (${c.type})`).join(', ');
    throw new ConnectorError(
      `table ${req.table} has no column ${names}; set schema_evolution: "add_columns" to add it`,
      'config_error',
    );
  }
  for (const column of missing)
    await connection.run(`alter table ${target} add column ${quoteIdent(column.name)} ${column.type}`);
}
