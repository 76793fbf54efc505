/**
 * Encoding batches of rows into a file's bytes, chunk by chunk (so a large write never sits whole in memory).
 * Columns are the keys of the first non-empty batch; a later row with another key is an error. CSV writes a
 * header; dates as ISO text, objects as JSON, bytes as hex. JSON lines: one object per line.
 */
import { stringify } from 'csv-stringify/sync';
import { columnsOf } from '../postgres/copy-csv.js';
import type { Row } from '../types.js';
import { checkColumns } from './row-columns.js';
import { scalarText } from './scalar-text.js';
import { encodeParquet } from './encode-parquet.js';
import type { FileFormat } from './file-format.js';

export interface EncodeOptions {
  csvDelimiter?: string;
  /** Counts rows as they are encoded. */
  onRows?: (count: number) => void;
}

export function encodeRows(
  format: FileFormat,
  batches: AsyncIterable<Row[]>,
  opts: EncodeOptions = {},
): AsyncGenerator<Uint8Array> {
  switch (format) {
    case 'csv':
      return encodeCsv(batches, opts);
    case 'jsonl':
      return encodeJsonLines(batches, opts);
    case 'parquet':
      return encodeParquet(batches, opts.onRows);
  }
}

function csvValue(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (value instanceof Date) return value.toISOString();
  if (value instanceof Uint8Array) return Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('hex');
  return scalarText(value);
}

async function* encodeCsv(batches: AsyncIterable<Row[]>, opts: EncodeOptions): AsyncGenerator<Uint8Array> {
  let columns: string[] | undefined;
  let known = new Set<string>();
  for await (const batch of batches) {
    if (batch.length === 0) continue;
    const header = columns === undefined;
    if (!columns) {
      columns = columnsOf(batch);
      known = new Set(columns);
    }
    checkColumns(batch, known);
    const cols = columns;
    const records = batch.map((row) => cols.map((c) => csvValue(row[c])));
    yield Buffer.from(stringify(records, { header, columns: cols, delimiter: opts.csvDelimiter ?? ',' }));
    opts.onRows?.(batch.length);
  }
}

function jsonReplacer(_key: string, value: unknown): unknown {
  if (typeof value === 'bigint') return Number.isSafeInteger(Number(value)) ? Number(value) : value.toString();
  if (
    value &&
    typeof value === 'object' &&
    (value as { type?: unknown }).type === 'Buffer' &&
    Array.isArray((value as { data?: unknown }).data)
  ) {
    return Buffer.from((value as { data: number[] }).data).toString('hex');
  }
  return value;
}

async function* encodeJsonLines(batches: AsyncIterable<Row[]>, opts: EncodeOptions): AsyncGenerator<Uint8Array> {
  let known: Set<string> | undefined;
  for await (const batch of batches) {
    if (batch.length === 0) continue;
    known ??= new Set(columnsOf(batch));
    checkColumns(batch, known);
    yield Buffer.from(batch.map((row) => JSON.stringify(row, jsonReplacer)).join('\n') + '\n');
    opts.onRows?.(batch.length);
  }
}
