/**
 * The DuckDB half of a typed PostgreSQL read: a COPY CSV file of the scratch folder becomes a new table with the
 * declared column types, read by DuckDB's own CSV reader (no value passes through JS). NULL is an unquoted empty
 * field and the empty string a quoted one, so they stay apart.
 */
import type { ColumnSpec, DuckDBTable } from '../types.js';
import { ConnectorError } from '../connector-error.js';
import { quoteIdent } from '../duckdb/database.js';
import { guardedDuck, MAX_DECIMAL_PRECISION, type ColumnPlan } from './pg-types.js';

export interface LoadColumn {
  name: string;
  /** PostgreSQL's name of the type, e.g. `numeric(12,2)`. */
  sourceType: string;
  plan: ColumnPlan;
}

const sqlString = (text: string): string => `'${text.replace(/'/g, "''")}'`;
/** The file's fields are named by position: the real names (any characters, any case) appear only in the table. */
const fieldName = (index: number): string => `c${index}`;
/** A value of PostgreSQL may be up to 1 GB; DuckDB's reader refuses longer lines than this (and says so). */
const MAX_LINE_BYTES = 64 * 1024 * 1024;

function readCsvSql(file: string, columns: readonly LoadColumn[]): string {
  const declared = columns.map((c, i) => `${sqlString(fieldName(i))}: ${sqlString(c.plan.csvType)}`).join(', ');
  return (
    `read_csv(${sqlString(file)}, columns = {${declared}}, header = false, auto_detect = false, delim = ',', quote = '"',` +
    ` escape = '"', nullstr = '', allow_quoted_nulls = false, max_line_size = ${MAX_LINE_BYTES}, buffer_size = ${4 * MAX_LINE_BYTES})`
  );
}

/** Creates `target.table` and fills it from `file`, in one transaction; returns the columns as the table has them. */
export async function loadCsvIntoTable(target: DuckDBTable, file: string, columns: readonly LoadColumn[]): Promise<{ rows: number; columns: ColumnSpec[] }> {
  if (columns.length === 0) throw new ConnectorError('the query returns no columns', 'config_error');
  const { connection } = target;
  const table = quoteIdent(target.table);
  const types = columns.map((c) => c.plan.duckType);
  await connection.run('begin transaction');
  try {
    await connection.run(`create table ${table} (${columns.map((c, i) => `${quoteIdent(c.name)} ${types[i]}`).join(', ')})`);
    const values = columns.map((c, i) => `${guardedDuck(c.plan, c.name, fieldName(i))}`).join(', ');
    const inserted = await connection.run(`insert into ${table} select ${values} from ${readCsvSql(file, columns)}`);
    for (const [i, column] of columns.entries()) {
      if (column.plan.unboundedNumeric) types[i] = await narrowUnboundedNumeric(target, column.name);
    }
    await connection.run('commit');
    return { rows: inserted.rowsChanged, columns: columns.map((c, i) => ({ name: c.name, type: types[i]!, source_type: c.sourceType })) };
  } catch (err) {
    await connection.run('rollback').catch(() => undefined);
    throw loadError(err, columns);
  }
}

/**
 * An unbounded numeric column, loaded as PostgreSQL's exact text, becomes DECIMAL(38,s) with s the largest scale of
 * its values when every value then fits (at most 38 digits in all, no NaN or Infinity); otherwise it stays VARCHAR
 * with the exact text. Never DOUBLE: that would lose digits without a word.
 */
async function narrowUnboundedNumeric(target: DuckDBTable, name: string): Promise<string> {
  const column = quoteIdent(name);
  const reader = await target.connection.runAndReadAll(
    `select coalesce(max(length(split_part(${column}, '.', 2))), 0)::integer as scale,` +
      ` coalesce(max(length(ltrim(split_part(ltrim(${column}, '-'), '.', 1), '0'))), 0)::integer as whole,` +
      ` coalesce(bool_or(${column} in ('NaN', 'Infinity', '-Infinity')), false) as special from ${quoteIdent(target.table)}`,
  );
  const [scale, whole, special] = reader.getRows()[0] as [number, number, boolean];
  if (special || scale + whole > MAX_DECIMAL_PRECISION) return 'VARCHAR';
  const type = `DECIMAL(${MAX_DECIMAL_PRECISION},${scale})`;
  await target.connection.run(`alter table ${quoteIdent(target.table)} alter ${column} type ${type}`);
  return type;
}

/**
 * DuckDB names the file's positional fields (c0, c1...): the message names the source's columns instead. Only the
 * error's first line and the conversion that failed are kept: DuckDB adds the row's data (which may be private) and
 * hints about type detection, which this reader does not use.
 */
function loadError(err: unknown, columns: readonly LoadColumn[]): unknown {
  // DuckDB's errors come from the native module: not always instances of this realm's Error.
  if (err instanceof ConnectorError || typeof err !== 'object' || err === null || !('message' in err)) return err;
  const lines = String(err.message).split('\n');
  const kept = [lines[0], ...lines.filter((line) => /^\s*Error when converting column/.test(line))].map((line) => line!.trim());
  const message = kept.join(': ').replace(/\bcolumn "?c(\d+)"?/gi, (whole, index: string) => {
    const column = columns[Number(index)];
    return column ? `column "${column.name}" (${column.sourceType})` : whole;
  });
  return new ConnectorError(`loading the rows into DuckDB failed: ${message}`, 'config_error', { cause: err });
}
