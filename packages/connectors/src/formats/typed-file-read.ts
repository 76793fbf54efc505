/**
 * Data files of the run's scratch folder into a new table of the run's DuckDB, read by DuckDB's own readers in bulk:
 * Parquet with its own schema (`read_parquet`), CSV and JSON lines with DuckDB's sniffer (`read_csv`, `read_json`)
 * looking at every row, not a sample (a sample can miss the row that makes a column DOUBLE or VARCHAR, and DuckDB
 * would then round `2.5` into a BIGINT column or drop a JSON key it never saw). The node's `columns` overrides set the
 * type of the columns they name: given to the CSV and JSON readers, cast for Parquet. Several files are one table with
 * the union of their columns (by name), in the order given.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { ConnectorError } from '../connector-error.js';
import { quoteIdent } from '../duckdb/database.js';
import { sqlString } from '../duckdb/parquet-transfer.js';
import { DEFAULT_TRANSFER_BUFFERS, type TransferBuffers } from '../transfer-buffers.js';
import type { ColumnSpec, DuckDBTable, TypedReadResult } from '../types.js';
import { resolveColumnTypes, type ColumnOverrides } from './column-overrides.js';
import type { FileFormat } from './file-format.js';
import { readAll } from '../duckdb/read-all.js';

export interface ScratchDataFile {
  /** The file in the run's scratch folder. */
  path: string;
  format: FileFormat;
  /** What the user calls it (a path relative to the tenant's folder, an object key): for messages. */
  name: string;
}

export interface TypedFileReadOptions {
  /** The CSV field delimiter; default `,`. */
  csvDelimiter?: string;
  overrides: ColumnOverrides;
  /** The CSV reader's line and buffer sizes; loadFilesIntoTable takes them from the target (the run's memory limit). */
  buffers?: TransferBuffers;
}

interface FormatGroup {
  format: FileFormat;
  files: ScratchDataFile[];
  /** Each column's type as the file (Parquet) or the sniffer (CSV is not sniffed for this: names only) gives it. */
  columns: Map<string, string>;
}

const list = (files: readonly ScratchDataFile[]): string => `[${files.map((f) => sqlString(f.path)).join(', ')}]`;
const struct = (entries: Iterable<[string, string]>): string =>
  `{${[...entries].map(([name, type]) => `${sqlString(name)}: ${sqlString(type)}`).join(', ')}}`;

function csvReader(
  group: FormatGroup,
  opts: TypedFileReadOptions,
  overrides: Map<string, string>,
  sampleSize: number,
): string {
  const types = overrides.size > 0 ? `, types = ${struct(overrides)}` : '';
  const buffers = opts.buffers ?? DEFAULT_TRANSFER_BUFFERS;
  // As the row read did: the header names the columns, an unquoted empty field is NULL and a quoted one the empty string.
  return (
    `read_csv(${list(group.files)}, header = true, delim = ${sqlString(opts.csvDelimiter ?? ',')}, quote = '"', escape = '"', ` +
    `allow_quoted_nulls = false, union_by_name = true, sample_size = ${sampleSize}${types}, ` +
    // DuckDB's default buffer (32 MiB) would not fit a small run's memory at all.
    `max_line_size = ${buffers.csvMaxLineBytes}, buffer_size = ${buffers.csvBufferBytes})`
  );
}

function jsonReader(files: readonly ScratchDataFile[], columns?: Map<string, string>): string {
  const declared = columns ? `, columns = ${struct(columns)}` : ', sample_size = -1, union_by_name = true';
  return `read_json(${list(files)}, format = 'newline_delimited', records = true${declared})`;
}

const parquetReader = (files: readonly ScratchDataFile[]): string =>
  `read_parquet(${list(files)}, union_by_name = true)`;

async function describe(connection: DuckDBConnection, from: string): Promise<Map<string, string>> {
  const rows = (
    await readAll(connection.run(`select column_name, column_type from (describe select * from ${from})`))
  ).getRows();
  return new Map(rows.map(([name, type]) => [String(name), String(type)]));
}

/** The most digits a HUGEINT holds of every value (2^127 has 39). */
const HUGEINT_DIGITS = 38;

/**
 * DuckDB's JSON sniffer makes an integer column DOUBLE once a value passes 64 bits (12345678901234567890123 became
 * 1.2345678901234568e+22): a DOUBLE column whose every value is an integer of at most 38 digits is HUGEINT instead,
 * its values exact. One more pass over the files, only when the sniff gave a DOUBLE.
 */
async function withWideIntegers(
  connection: DuckDBConnection,
  files: readonly ScratchDataFile[],
  sniffed: Map<string, string>,
): Promise<Map<string, string>> {
  const doubles = [...sniffed].filter(([, type]) => type === 'DOUBLE').map(([name]) => name);
  if (doubles.length === 0) return sniffed;
  // Read as JSON, a number keeps the text it has in the file (DuckDB's JSON type does not reparse big integers); only
  // those columns are read.
  const asText = new Map(doubles.map((name) => [name, 'JSON']));
  const integers = doubles.map((name) => {
    const text = `${quoteIdent(name)}::VARCHAR`;
    return `count(${quoteIdent(name)}) > 0 and coalesce(bool_and(regexp_full_match(${text}, '-?[0-9]{1,${HUGEINT_DIGITS}}')), false)`;
  });
  const row = (
    await readAll(connection.run(`select ${integers.join(', ')} from ${jsonReader(files, asText)}`))
  ).getRows()[0];
  const typed = new Map(sniffed);
  doubles.forEach((name, i) => {
    if (row?.[i] === true) typed.set(name, 'HUGEINT');
  });
  return typed;
}

/** Files grouped by format, each group in the order of its first file; the files keep their order within it. */
function groupByFormat(files: readonly ScratchDataFile[]): Omit<FormatGroup, 'columns'>[] {
  const groups = new Map<FileFormat, ScratchDataFile[]>();
  for (const file of files) groups.set(file.format, [...(groups.get(file.format) ?? []), file]);
  return [...groups].map(([format, members]) => ({ format, files: members }));
}

async function columnsOf(
  connection: DuckDBConnection,
  group: Omit<FormatGroup, 'columns'>,
  opts: TypedFileReadOptions,
): Promise<Map<string, string>> {
  switch (group.format) {
    case 'parquet':
      return describe(connection, parquetReader(group.files));
    case 'jsonl':
      // The whole sniff: these types are the ones the read declares.
      return withWideIntegers(connection, group.files, await describe(connection, jsonReader(group.files)));
    case 'csv':
      // Only the names matter here (the header); the read itself sniffs every row.
      return describe(connection, csvReader({ ...group, columns: new Map() }, opts, new Map(), 1024));
  }
}

/** The SELECT that reads one group, with the overrides that name its columns. */
function groupSelect(group: FormatGroup, opts: TypedFileReadOptions, types: ReadonlyMap<string, string>): string {
  const own = new Map([...types].filter(([name]) => group.columns.has(name)));
  switch (group.format) {
    case 'csv':
      return `select * from ${csvReader(group, opts, own, -1)}`;
    case 'jsonl':
      return `select * from ${jsonReader(group.files, new Map([...group.columns].map(([name, type]) => [name, own.get(name) ?? type])))}`;
    case 'parquet': {
      const casts = [...own].map(([name, type]) => `cast(${quoteIdent(name)} as ${type}) as ${quoteIdent(name)}`);
      return `select *${casts.length > 0 ? ` replace (${casts.join(', ')})` : ''} from ${parquetReader(group.files)}`;
    }
  }
}

function sourceTypeOf(
  name: string,
  groups: readonly FormatGroup[],
  types: ReadonlyMap<string, string>,
): string | undefined {
  const group = groups.find((g) => g.columns.has(name));
  if (!group) return undefined;
  if (group.format === 'parquet') return `parquet ${group.columns.get(name)!}`;
  return `${group.format === 'csv' ? 'csv' : 'json'} ${types.has(name) ? '(columns)' : '(sniffed)'}`;
}

/**
 * Creates `target.table` from `files` (in one statement: a failure leaves no table). No file gives a table of no rows
 * with one placeholder column, as a source that read nothing gets (the executor's row loader does the same).
 */
export async function loadFilesIntoTable(
  target: DuckDBTable,
  files: readonly ScratchDataFile[],
  given: TypedFileReadOptions,
): Promise<TypedReadResult> {
  const { connection } = target;
  const opts = { ...given, buffers: target.buffers ?? given.buffers };
  const table = quoteIdent(target.table);
  try {
    const types = await resolveColumnTypes(connection, opts.overrides);
    if (files.length === 0) {
      await connection.run(`create table ${table} ("_empty" INTEGER)`);
      return { rows: 0, columns: [{ name: '_empty', type: 'INTEGER' }] };
    }
    const groups: FormatGroup[] = [];
    for (const group of groupByFormat(files))
      groups.push({ ...group, columns: await columnsOf(connection, group, opts) });
    const unknown = [...types.keys()].filter((name) => !groups.some((g) => g.columns.has(name)));
    if (unknown.length > 0) {
      const known = [...new Set(groups.flatMap((g) => [...g.columns.keys()]))];
      throw new ConnectorError(
        `columns names ${unknown.map((n) => `"${n}"`).join(', ')}, which the data does not have (its columns: ${known.slice(0, 30).join(', ')}${known.length > 30 ? ', ...' : ''})`,
        'config_error',
      );
    }
    const selects = groups.map((g) => groupSelect(g, opts, types));
    const body = selects.length === 1 ? selects[0]! : selects.map((s) => `(${s})`).join(' union all by name ');
    await connection.run(`create table ${table} as ${body}`);
    const rows = Number((await readAll(connection.run(`select count(*) from ${table}`))).getRows()[0]?.[0] ?? 0);
    const described = await describe(connection, table);
    const columns: ColumnSpec[] = [...described].map(([name, type]) => {
      const source_type = sourceTypeOf(name, groups, types);
      return source_type === undefined ? { name, type } : { name, type, source_type };
    });
    return { rows, columns };
  } catch (err) {
    throw typedReadError(err, files);
  }
}

/**
 * DuckDB's message with the scratch files named as the user knows them, without the whole offending line (a CSV
 * error quotes it) and with the fix our users have (`columns`, not DuckDB's `types=` argument).
 */
export function typedReadError(err: unknown, files: readonly ScratchDataFile[]): unknown {
  if (err instanceof ConnectorError) return err;
  const own = (err as { message?: unknown } | null)?.message;
  if (typeof own !== 'string') return err;
  let message = own;
  for (const file of files) message = message.split(file.path).join(file.name);
  message = message
    .split('\n')
    .filter((line) => !/^\s*Original Line:/.test(line))
    .join('\n');
  const cut = message.search(/\n\s*(Possible solutions|Possible fixes|LINE \d+:)/);
  if (cut >= 0) message = message.slice(0, cut);
  message = message.replace(/\s+/g, ' ').trim();
  if (/Conversion Error|Could not convert|Invalid Input Error/i.test(message)) {
    message += '. Set the column\'s type in the node\'s "columns" (e.g. {"<column>": "VARCHAR"})';
  }
  const transient = /Interrupted/i.test(message);
  return new ConnectorError(message, transient ? 'transient_error' : 'config_error', { cause: err });
}
