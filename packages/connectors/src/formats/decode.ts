/**
 * Decoding files into batches of rows. CSV: the header names the columns, values are strings and an unquoted empty
 * field is null. JSON lines: one object per line. Parquet: row group by row group through hyparquet, INT64 values
 * within the safe range as numbers.
 */
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { parse } from 'csv-parse';
import { parquetMetadataAsync, parquetReadObjects, type AsyncBuffer } from 'hyparquet';
import { ConnectorError } from '../connector-error.js';
import type { Row } from '../types.js';
import type { FileFormat } from './file-format.js';

export interface DecodeOptions {
  batchSize: number;
  /** Shown in errors, e.g. the file's path or the object's key. */
  name: string;
  csvDelimiter?: string;
}

/** Opens a byte stream of the whole file (csv, jsonl) or random access to it (parquet). */
export interface FileSource {
  stream(): Promise<Readable>;
  randomAccess(): Promise<AsyncBuffer>;
}

export async function* decodeFile(format: FileFormat, source: FileSource, opts: DecodeOptions): AsyncGenerator<Row[]> {
  switch (format) {
    case 'csv':
      yield* rebatch(decodeCsv(await source.stream(), opts), opts.batchSize);
      return;
    case 'jsonl':
      yield* rebatch(decodeJsonLines(await source.stream(), opts.name), opts.batchSize);
      return;
    case 'parquet':
      yield* decodeParquet(await source.randomAccess(), opts);
  }
}

async function* decodeCsv(stream: Readable, opts: DecodeOptions): AsyncGenerator<Row> {
  const parser = stream.pipe(
    parse({
      columns: true,
      bom: true,
      delimiter: opts.csvDelimiter ?? ',',
      cast: (value, context) => (value === '' && !context.quoting ? null : value),
    }),
  );
  stream.once('error', (err) => parser.destroy(err));
  try {
    for await (const record of parser as AsyncIterable<Row>) yield record;
  } catch (err) {
    throw err instanceof ConnectorError || isStreamError(err)
      ? err
      : new ConnectorError(`${opts.name}: ${(err as Error).message}`, 'config_error', { cause: err });
  } finally {
    stream.destroy();
  }
}

async function* decodeJsonLines(stream: Readable, name: string): AsyncGenerator<Row> {
  const lines = createInterface({ input: stream, crlfDelay: Infinity });
  let lineNumber = 0;
  try {
    for await (const line of lines) {
      lineNumber++;
      if (line.trim() === '') continue;
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch {
        throw new ConnectorError(`${name}: line ${lineNumber} is not valid JSON`, 'config_error');
      }
      if (value === null || typeof value !== 'object' || Array.isArray(value)) {
        throw new ConnectorError(`${name}: line ${lineNumber} is not a JSON object`, 'config_error');
      }
      yield value as Row;
    }
  } finally {
    lines.close();
    stream.destroy();
  }
}

async function* decodeParquet(file: AsyncBuffer, opts: DecodeOptions): AsyncGenerator<Row[]> {
  let metadata;
  try {
    metadata = await parquetMetadataAsync(file);
  } catch (err) {
    throw new ConnectorError(`${opts.name}: not a readable Parquet file (${(err as Error).message})`, 'config_error', {
      cause: err,
    });
  }
  let rowStart = 0;
  // One row group at a time (decoded once) keeps memory bounded by the largest group; batches of batchSize within it.
  for (const group of metadata.row_groups) {
    const rowEnd = rowStart + Number(group.num_rows);
    const rows = (await parquetReadObjects({ file, metadata, rowStart, rowEnd })) as Row[];
    for (let start = 0; start < rows.length; start += opts.batchSize) {
      yield rows.slice(start, start + opts.batchSize).map(plainParquetRow);
    }
    rowStart = rowEnd;
  }
}

function plainParquetRow(row: Row): Row {
  for (const key of Object.keys(row)) {
    const value = row[key];
    if (
      typeof value === 'bigint' &&
      value >= BigInt(Number.MIN_SAFE_INTEGER) &&
      value <= BigInt(Number.MAX_SAFE_INTEGER)
    ) {
      row[key] = Number(value);
    }
  }
  return row;
}

/** Groups single rows into batches of `size`. */
export async function* rebatch(rows: AsyncIterable<Row>, size: number): AsyncGenerator<Row[]> {
  let batch: Row[] = [];
  for await (const row of rows) {
    batch.push(row);
    if (batch.length >= size) {
      yield batch;
      batch = [];
    }
  }
  if (batch.length > 0) yield batch;
}

// Errors of the underlying byte stream (a dropped connection, a missing file) are the caller's to classify.
const isStreamError = (err: unknown): boolean =>
  typeof (err as { code?: unknown } | null)?.code === 'string' &&
  !String((err as { code: string }).code).startsWith('CSV_');
