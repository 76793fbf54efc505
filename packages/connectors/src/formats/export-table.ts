/**
 * A table of the run's DuckDB written to a file of the run's scratch folder by DuckDB's own `COPY ... TO`, so the
 * file and S3 sinks keep the table's types (no value passes through JS). Per format, one expression per column:
 *
 * - Parquet: each column as itself where Parquet holds it exactly, else as the DuckDB-file connector's transfer
 *   writes it (duckdb/parquet-transfer.ts: HUGEINT, TIME WITH TIME ZONE, BIT... as DuckDB's text, INTERVAL as a
 *   struct of months, days and micros), under the column's own name.
 * - CSV: DuckDB's own text of each value (decimals with their scale, ISO dates, lists and structs as DuckDB prints
 *   and casts them back), a header line, NULL an empty field and '' a quoted empty one; TIMESTAMPTZ in UTC (`+00`).
 * - JSON lines: DuckDB's JSON of each value (integers and floats as numbers, nested values as arrays and objects, a
 *   JSON column embedded); TIMESTAMPTZ in UTC as for CSV; DECIMAL and HUGEINT as strings of their exact text (with
 *   the scale); NaN and ±Infinity (which JSON has not) as the strings "nan", "inf", "-inf"; BLOB as base64.
 *
 * docs/type-mapping.md has the table.
 */
import { quoteIdent } from '../duckdb/database.js';
import { describeColumns, exportExpr, sqlString } from '../duckdb/parquet-transfer.js';
import { utcTimestamptzText } from '../duckdb/timestamptz-text.js';
import type { ColumnSpec, DuckDBTable } from '../types.js';
import type { FileFormat } from './file-format.js';

export interface ExportOptions {
  /** CSV's field delimiter; default `,`. */
  csvDelimiter?: string;
}

const TIMESTAMPTZ = /^TIMESTAMP WITH TIME ZONE$/i;
const FLOATING = /^(FLOAT|DOUBLE|REAL|FLOAT4|FLOAT8)$/i;
/** Numbers as strings of their exact text: JSON readers (DuckDB's among them) take numbers as doubles, and drop a scale. */
const EXACT_TEXT_IN_JSON = /^(DECIMAL\(\d+,\d+\)|U?HUGEINT|BIGNUM|VARINT)$/i;

/** The value written for `column` (SQL `ref`) in `format`. */
function columnExpr(format: FileFormat, column: ColumnSpec, ref: string): string {
  if (format === 'parquet') return exportExpr(column, ref);
  if (TIMESTAMPTZ.test(column.type)) return utcTimestamptzText(ref);
  // DuckDB's JSON writer prints NaN and Infinity bare, which no JSON reader accepts.
  if (format === 'jsonl' && FLOATING.test(column.type))
    return `case when isfinite(${ref}) then to_json(${ref}) else to_json(${ref}::VARCHAR) end`;
  if (format === 'jsonl' && EXACT_TEXT_IN_JSON.test(column.type)) return `${ref}::VARCHAR`;
  // DuckDB's text of a BLOB (`\x00...`) reads back as those characters from JSON; base64 is JSON's usual form for bytes.
  if (format === 'jsonl' && /^BLOB$/i.test(column.type)) return `to_base64(${ref})`;
  return ref;
}

function copyOptions(format: FileFormat, opts: ExportOptions): string {
  switch (format) {
    case 'parquet':
      return 'format parquet';
    case 'csv':
      return `format csv, header true, delimiter ${sqlString(opts.csvDelimiter ?? ',')}`;
    case 'jsonl':
      return 'format json';
  }
}

/** Writes `source.table`'s rows to `file` (a path in `source.scratchDir`) in `format`; answers the rows written. */
export async function exportTable(
  source: DuckDBTable,
  format: FileFormat,
  file: string,
  opts: ExportOptions = {},
): Promise<number> {
  const table = quoteIdent(source.table);
  const columns = await describeColumns(source.connection, `select * from ${table}`);
  const select = columns.map((c) => `${columnExpr(format, c, quoteIdent(c.name))} as ${quoteIdent(c.name)}`).join(', ');
  const copied = await source.connection.run(
    `copy (select ${select} from ${table}) to ${sqlString(file)} (${copyOptions(format, opts)})`,
  );
  return Number(copied.rowsChanged);
}
