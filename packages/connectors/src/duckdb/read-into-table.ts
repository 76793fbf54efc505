/**
 * A typed read of a DuckDB file: the connector's file, opened in a file worker (file-worker/: read-only, sandboxed,
 * allowed to write exactly one file of the run's scratch folder), copies the source's rows into Parquet; the run's
 * DuckDB creates the node's table with the source's own column types and loads the file into it. No value passes
 * through JS; the file is removed after.
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { ConnectorError } from '../connector-error.js';
import type { ColumnSpec, DuckDBTable, ReadRequest, TypedReadResult } from '../types.js';
import { quoteIdent, toDuckdbError, withDatabase } from './database.js';
import type { DuckdbConfig } from './duckdb.config.js';
import { fileReadOf, fileWorkBase, inWorker } from './file-worker/workers.js';
import { copyToParquetSql, deduplicated, describeColumns, importSelect, sqlString } from './parquet-transfer.js';
import { sourceSql, sourceStatement } from './read.js';
import { removeFile } from '../remove-file.js';
import { runOneStatement } from './one-statement.js';

export async function readIntoTable(
  cfg: DuckdbConfig,
  req: ReadRequest,
  target: DuckDBTable,
): Promise<TypedReadResult> {
  const { signal } = req;
  const file = join(target.scratchDir, `duckdb-read-${randomUUID()}.parquet`);
  try {
    const columns = loadableColumns(
      await inWorker(
        { op: 'read-parquet', cfg, ...fileWorkBase(req.tenantId, req.duckdbLimits), read: fileReadOf(req), file },
        signal,
      ),
    );
    signal?.throwIfAborted();
    return await loadParquet(target, file, columns);
  } finally {
    await removeFile(file);
  }
}

/**
 * The longest column type, and all columns' types together, that the run's DuckDB parses from the tenant's file: a
 * type is the tenant's (an ENUM of 100,000 labels is 2.2 MB of text), and parsing it costs the executor many times
 * its size (four such columns: 560 MB and 13 s). A struct of 300 fields or an enum of 2,000 labels fits.
 */
const TYPE_TEXT_MAX = 64 * 1024;
const TYPES_TEXT_MAX = 256 * 1024;

/** The worker's columns, checked before the run's DuckDB parses any of them. */
function loadableColumns(answer: unknown): ColumnSpec[] {
  const columns = Array.isArray(answer) ? (answer as unknown[]) : [];
  const valid = columns.every(
    (c): c is ColumnSpec =>
      typeof c === 'object' &&
      c !== null &&
      typeof (c as ColumnSpec).name === 'string' &&
      typeof (c as ColumnSpec).type === 'string',
  );
  if (!valid || columns.length === 0)
    throw new ConnectorError('the DuckDB file answered no columns', 'transient_error');
  let total = 0;
  for (const column of columns) {
    total += column.type.length + column.name.length;
    if (column.type.length > TYPE_TEXT_MAX || column.name.length > TYPE_TEXT_MAX)
      throw new ConnectorError(
        `column "${column.name.slice(0, 100)}" has a type of ${column.type.length} characters, more than a run loads ` +
          `(${TYPE_TEXT_MAX}): cast it in the query (to VARCHAR, say)`,
        'config_error',
      );
    if (total > TYPES_TEXT_MAX)
      throw new ConnectorError(
        `the columns' types come to more than a run loads (${TYPES_TEXT_MAX} characters): select fewer columns, or ` +
          'cast the largest (to VARCHAR, say)',
        'config_error',
      );
  }
  return columns;
}

/** In the file worker: the source's rows copied into `file`; answers their columns, each name once. */
export async function copyReadToParquet(cfg: DuckdbConfig, req: ReadRequest, file: string): Promise<ColumnSpec[]> {
  const source = sourceSql(cfg, req);
  const { sql } = source;
  return withDatabase(
    cfg,
    { mode: 'read', tenantId: req.tenantId, allowedPaths: [file], limits: req.duckdbLimits },
    req.signal,
    async (connection) => {
      // Checked as the row read checks it: one SELECT that reads only tables.
      (await sourceStatement(connection, source)).destroySync();
      const declared = await describeColumns(connection, sql);
      if (declared.length === 0) throw new ConnectorError('the query returns no columns', 'config_error');
      await connection.run(copyToParquetSql(sql, declared, file));
      return deduplicated(declared);
    },
  );
}

/** Creates `target.table` with `columns`' types and fills it from `file`, in one transaction (a failure leaves no table). */
async function loadParquet(
  target: DuckDBTable,
  file: string,
  columns: readonly ColumnSpec[],
): Promise<TypedReadResult> {
  const { connection } = target;
  const table = quoteIdent(target.table);
  try {
    await connection.run('begin transaction');
    try {
      await runOneStatement(
        connection,
        `create table ${table} (${columns.map((c) => `${quoteIdent(c.name)} ${c.type}`).join(', ')})`,
      );
      const inserted = await runOneStatement(
        connection,
        `insert into ${table} select ${importSelect(columns)} from read_parquet(${sqlString(file)})`,
      );
      await connection.run('commit');
      return { rows: inserted.rowsChanged, columns: [...columns] };
    } catch (err) {
      await connection.run('rollback').catch(() => undefined);
      throw err;
    }
  } catch (err) {
    throw toDuckdbError(err);
  }
}
