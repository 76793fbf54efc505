/**
 * The DuckDB half of a typed PostgreSQL read: a COPY CSV file of the scratch folder becomes a new table with the
 * declared column types, read by DuckDB's own CSV reader (no value passes through JS). NULL is an unquoted empty
 * field and the empty string a quoted one, so they stay apart.
 */
import type { ColumnSpec, DuckDBTable } from '../types.js';
import { ConnectorError } from '../connector-error.js';
import { removeFile } from '../remove-file.js';
import { csvReaderSizes, DEFAULT_TRANSFER_BUFFERS, type TransferBuffers } from '../transfer-buffers.js';
import { quoteIdent } from '../duckdb/database.js';
import { decimalPlan, guardedDuck, MAX_DECIMAL_PRECISION, sqlString, type ColumnPlan } from './pg-types.js';
import { readAll } from '../duckdb/read-all.js';

export interface LoadColumn {
  name: string;
  /** PostgreSQL's name of the type, e.g. `numeric(12,2)`. */
  sourceType: string;
  plan: ColumnPlan;
}

/** The file's fields are named by position: the real names (any characters, any case) appear only in the table. */
const fieldName = (index: number): string => `c${index}`;
/**
 * The reader's line and buffer sizes come from the run's memory limit (its buffers are taken from the run's DuckDB
 * memory, one per reading thread): a row longer than the line size fails the load, and the message says so.
 */
function readCsvSql(
  files: string | readonly string[],
  columns: readonly LoadColumn[],
  buffers: TransferBuffers,
  bytesOf: PartBytes,
): string {
  const declared = columns.map((c, i) => `${sqlString(fieldName(i))}: ${sqlString(c.plan.csvType)}`).join(', ');
  const list = typeof files === 'string' ? [files] : files;
  const from = typeof files === 'string' ? sqlString(files) : `[${list.map(sqlString).join(', ')}]`;
  const bytes = list.map(bytesOf);
  const sizes = csvReaderSizes(
    buffers,
    bytes.every((b): b is number => b !== undefined) ? Math.max(...bytes) : undefined,
  );
  return (
    `read_csv(${from}, columns = {${declared}}, header = false, auto_detect = false, delim = ',', quote = '"',` +
    ` escape = '"', nullstr = '', allow_quoted_nulls = false, max_line_size = ${sizes.maxLineBytes},` +
    ` buffer_size = ${sizes.bufferBytes})`
  );
}

/** The bytes of a part file, when known (the reader is then sized to it: csvReaderSizes). */
export type PartBytes = (file: string) => number | undefined;

/**
 * Creates `target.table` and fills it from the CSV `parts` (files, in order) in one transaction, each part as it
 * comes (and removed once loaded), so DuckDB loads while the source still writes; returns the columns as the table has
 * them. Unbounded numerics need every value first (see below): then the parts are loaded together at the end.
 */
export async function loadCsvPartsIntoTable(
  target: DuckDBTable,
  parts: AsyncIterable<string>,
  declared: readonly LoadColumn[],
  bytesOf: PartBytes,
): Promise<{ rows: number; columns: ColumnSpec[] }> {
  if (declared.length === 0) throw new ConnectorError('the query returns no columns', 'config_error');
  const { connection } = target;
  const buffers = target.buffers ?? DEFAULT_TRANSFER_BUFFERS;
  const table = quoteIdent(target.table);
  await connection.run('begin transaction');
  try {
    const waitForAll = declared.some((c) => c.plan.unboundedNumeric);
    const all: string[] = [];
    if (waitForAll) for await (const part of parts) all.push(part);
    const columns = waitForAll
      ? await withUnboundedNumericsDecided(target, all, declared, buffers, bytesOf)
      : [...declared];
    await connection.run(
      `create table ${table} (${columns.map((c) => `${quoteIdent(c.name)} ${c.plan.duckType}`).join(', ')})`,
    );
    const values = columns.map((c, i) => `${guardedDuck(c.plan, c.name, c.sourceType, fieldName(i))}`).join(', ');
    const insert = (files: string | readonly string[]) =>
      connection.run(`insert into ${table} select ${values} from ${readCsvSql(files, columns, buffers, bytesOf)}`);
    let rows = 0;
    if (waitForAll) {
      if (all.length > 0) rows = (await insert(all)).rowsChanged;
    } else {
      for await (const part of parts) {
        rows += (await insert(part)).rowsChanged;
        await removeFile(part);
      }
    }
    await connection.run('commit');
    return { rows, columns: columns.map((c) => ({ name: c.name, type: c.plan.duckType, source_type: c.sourceType })) };
  } catch (err) {
    await connection.run('rollback').catch(() => undefined);
    throw loadError(err, declared, buffers);
  }
}

/**
 * An unbounded numeric column (read from the file as PostgreSQL's exact text) becomes DECIMAL(38,s) with s the
 * largest scale of its values when every value then fits (at most 38 digits in all, no NaN or Infinity); otherwise
 * it stays VARCHAR with the exact text. Never DOUBLE: that would lose digits without a word. The file is scanned
 * for this before the table exists (retyping a filled DuckDB column is far slower than a second scan).
 */
async function withUnboundedNumericsDecided(
  target: DuckDBTable,
  files: readonly string[],
  columns: readonly LoadColumn[],
  buffers: TransferBuffers,
  bytesOf: PartBytes,
): Promise<LoadColumn[]> {
  const unbounded = [...columns.keys()].filter((i) => columns[i]!.plan.unboundedNumeric);
  if (unbounded.length === 0) return [...columns];
  const stats = unbounded.map((i) => {
    const field = fieldName(i);
    return (
      `coalesce(max(length(split_part(${field}, '.', 2))), 0)::INTEGER, ` +
      `coalesce(max(length(ltrim(split_part(ltrim(${field}, '-'), '.', 1), '0'))), 0)::INTEGER, ` +
      `coalesce(bool_or(${field} in ('NaN', 'Infinity', '-Infinity')), false)`
    );
  });
  // No rows at all (no part): no scale, no digits, nothing special.
  const row =
    files.length === 0
      ? unbounded.flatMap(() => [0, 0, false])
      : (
          await readAll(
            target.connection.run(`select ${stats.join(', ')} from ${readCsvSql(files, columns, buffers, bytesOf)}`),
          )
        ).getRows()[0]!;
  const decided = [...columns];
  unbounded.forEach((column, k) => {
    const [scale, whole, special] = [row[3 * k] as number, row[3 * k + 1] as number, row[3 * k + 2] as boolean];
    if (special || scale + whole > MAX_DECIMAL_PRECISION) return;
    decided[column] = { ...columns[column]!, plan: decimalPlan(MAX_DECIMAL_PRECISION, scale) };
  });
  return decided;
}

/**
 * DuckDB names the file's positional fields (c0, c1...): the message names the source's columns instead. Only the
 * error's first line and the conversion that failed are kept: DuckDB adds the row's data (which may be private) and
 * hints about type detection, which this reader does not use.
 */
const TOO_LONG =
  /^Maximum line size of \d+ bytes exceeded|^Value with unterminated quote found|does not support a full read on this file/;

function loadError(err: unknown, columns: readonly LoadColumn[], buffers: TransferBuffers): unknown {
  // DuckDB's errors come from the native module: not always instances of this realm's Error.
  if (err instanceof ConnectorError || typeof err !== 'object' || err === null || !('message' in err)) return err;
  const lines = String(err.message).split('\n');
  // PostgreSQL's COPY output is well formed: each of these is DuckDB's reader meeting a row longer than its buffers
  // (which of them depends on how the row falls across buffers; some such rows even load).
  if (lines.some((line) => TOO_LONG.test(line))) {
    const mib = Math.floor(buffers.csvMaxLineBytes / (1024 * 1024));
    return new ConnectorError(
      `loading the rows into DuckDB failed: a row is longer than the ${mib} MiB a row may have as CSV within the run's memory limit (the executor's RUN_MEMORY_LIMIT)`,
      'config_error',
      { cause: err },
    );
  }
  const kept = [lines[0], ...lines.filter((line) => /^\s*Error when converting column/.test(line))].map((line) =>
    line!.trim(),
  );
  const message = kept.join(': ').replace(/\bcolumn "?c(\d+)"?/gi, (whole, index: string) => {
    const column = columns[Number(index)];
    return column ? `column "${column.name}" (${column.sourceType})` : whole;
  });
  return new ConnectorError(`loading the rows into DuckDB failed: ${message}`, 'config_error', { cause: err });
}
