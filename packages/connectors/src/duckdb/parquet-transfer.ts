/**
 * Moving a table between two DuckDB databases through a Parquet file, types kept: each column goes into the file as
 * itself where Parquet holds it exactly, else as DuckDB's own text (cast back on the other side to the declared type).
 * Parquet writes HUGEINT/UHUGEINT as DOUBLE, INTERVAL in milliseconds (and refuses negative ones), TIME WITH TIME
 * ZONE normalised to UTC, BIT, ENUM and VARINT as VARCHAR; a fixed-size ARRAY comes back as a LIST. The cast back
 * restores each column's exact declared type.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import type { ColumnSpec } from '../types.js';
import { quoteIdent } from './database.js';
import { readAll } from './read-all.js';

/** Types (also inside a LIST, STRUCT, MAP or ARRAY) that Parquet would change: they travel as text. */
const AS_TEXT = /\b(U?HUGEINT|INTERVAL|TIME WITH TIME ZONE|BIT|BITSTRING|VARINT|BIGNUM|UNION)\b/i;

export const sqlString = (text: string): string => `'${text.replace(/'/g, "''")}'`;

/** The file's fields are named by position: the real names (any characters, duplicates) appear only in tables. */
export const fieldName = (index: number): string => `c${index}`;

/** The columns of `sql` (one SELECT, already checked) with DuckDB's type names (JSON and ENUM(...) included). */
export async function describeColumns(connection: DuckDBConnection, sql: string): Promise<ColumnSpec[]> {
  const reader = await readAll(connection.run(`select column_name, column_type from (describe (\n${sql}\n))`));
  return reader
    .getRows()
    .map(([name, type]) => ({ name: String(name), type: String(type), source_type: String(type) }));
}

const isInterval = (column: ColumnSpec): boolean => /^INTERVAL$/i.test(column.type);

/**
 * What the file holds for column `ref`: the value itself, or its text where Parquet would change it. An INTERVAL
 * travels as its three parts: DuckDB's text of the extremes (e.g. 2562047788 hours) does not cast back. The file and
 * S3 sinks write their Parquet files with the same expressions (formats/export-table.ts).
 */
export function exportExpr(column: ColumnSpec, ref: string): string {
  if (isInterval(column)) {
    // A NULL interval is a NULL struct, not one of three NULLs (readers of the sinks' files see the difference).
    return (
      `case when ${ref} is not null then struct_pack(months := datepart('year', ${ref}) * 12 + datepart('month', ${ref}), ` +
      `days := datepart('day', ${ref}), micros := datepart('hour', ${ref})::BIGINT * 3600000000 + ` +
      `datepart('minute', ${ref})::BIGINT * 60000000 + datepart('microseconds', ${ref})) end`
    );
  }
  return AS_TEXT.test(column.type) ? `${ref}::VARCHAR` : ref;
}

/** The declared value of field `field` of the file. */
function importExpr(column: ColumnSpec, field: string): string {
  if (isInterval(column))
    return `to_months(${field}.months) + to_days(${field}.days) + to_microseconds(${field}.micros)`;
  return `${field}::${column.type}`;
}

/** `COPY` of `sql`'s rows into `file`, one positional field per column. */
export function copyToParquetSql(sql: string, columns: readonly ColumnSpec[], file: string): string {
  const positional = columns.map((_c, i) => fieldName(i));
  const fields = columns.map((c, i) => `${exportExpr(c, `q.${fieldName(i)}`)} as ${fieldName(i)}`).join(', ');
  return `copy (select ${fields} from (\n${sql}\n) as q(${positional.join(', ')})) to ${sqlString(file)} (format parquet)`;
}

/** The file's fields cast back to the declared types, named as the columns. */
export function importSelect(columns: readonly ColumnSpec[]): string {
  return columns.map((c, i) => `${importExpr(c, fieldName(i))} as ${quoteIdent(c.name)}`).join(', ');
}

/** Unique names for a table: DuckDB's result names may repeat (`select 1 a, 2 a`); repeats get `:1`, `:2` as the row read does. */
export function deduplicated(columns: readonly ColumnSpec[]): ColumnSpec[] {
  const seen = new Map<string, number>();
  return columns.map((c) => {
    const count = (seen.get(c.name) ?? 0) + 1;
    seen.set(c.name, count);
    return count > 1 ? { ...c, name: `${c.name}:${count - 1}` } : c;
  });
}
