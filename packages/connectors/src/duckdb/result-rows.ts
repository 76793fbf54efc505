/**
 * The one way a DuckDB result becomes JS rows (the DuckDB connector's row read, the executor's row sinks and the llm
 * decision's sample): one value conversion, one chunk at a time. docs/type-mapping.md, "Rows in JS".
 */
import duckdb, {
  type DuckDBConnection,
  type DuckDBDataChunk,
  type DuckDBResult,
  type DuckDBTimestampMillisecondsValue,
  type DuckDBTimestampNanosecondsValue,
  type DuckDBTimestampSecondsValue,
  type DuckDBTimestampTZValue,
  type DuckDBTimestampValue,
  type DuckDBType,
  type DuckDBValue,
  type DuckDBValueConverter,
  type Json,
} from '@duckdb/node-api';
import { ConnectorError } from '../connector-error.js';
import type { Row } from '../types.js';
import { quoteIdent } from './database.js';

const { DuckDBTypeId, JsonDuckDBValueConverter } = duckdb;

/** A value of a row read from DuckDB: JSON-safe (a timestamp is its ISO text, see `instantText`). */
export type PlainValue = Json;

function integerOf(value: DuckDBValue): number | string {
  const big = value as bigint;
  return big >= BigInt(Number.MIN_SAFE_INTEGER) && big <= BigInt(Number.MAX_SAFE_INTEGER)
    ? Number(big)
    : big.toString();
}

/** The largest instant a JS Date holds, in milliseconds either side of the epoch. */
const DATE_RANGE_MS = 8_640_000_000_000_000n;
/** DuckDB stores ±infinity as ±(2^63 - 1) in every timestamp unit. */
const INFINITE = 2n ** 63n - 1n;

/**
 * An instant of `units` (`perMs` of them a millisecond: 1000 for micro-, 1e6 for nanoseconds; seconds pass
 * `msPerUnit` 1000) as ISO 8601 in UTC with every digit the value holds: `2024-02-29T12:34:56.123Z`, and
 * `…56.123456Z` (or nine digits) only when the part below the millisecond is not zero, so a millisecond value reads
 * as a Date's `toISOString` does.
 * The division floors (node-api's own Date converters truncate toward the epoch, a millisecond late before 1970).
 * ±infinity are `infinity` and `-infinity`, as DuckDB spells them; an instant beyond a Date's range (±275760 years)
 * keeps DuckDB's own text.
 */
function instantText(units: bigint, perMs: bigint, value: DuckDBValue, msPerUnit = 1n): string {
  // node-api prints these as far-off instants for the _S, _MS and _NS units; DuckDB itself says infinity.
  if (units === INFINITE) return 'infinity';
  if (units === -INFINITE) return '-infinity';
  let ms = (units * msPerUnit) / perMs;
  let below = (units * msPerUnit) % perMs;
  if (below < 0n) {
    ms -= 1n;
    below += perMs;
  }
  if (ms > DATE_RANGE_MS || ms < -DATE_RANGE_MS) return String(value);
  const iso = new Date(Number(ms)).toISOString();
  if (below === 0n) return iso;
  const digits = perMs === 1000n ? 3 : 6;
  return `${iso.slice(0, -1)}${below.toString().padStart(digits, '0')}Z`;
}

/**
 * 64-bit and wider integers as numbers when safe (else decimal strings), timestamps as exact ISO text, everything
 * else as DuckDB's own JSON-safe conversion (DECIMAL as its exact text, DATE as `YYYY-MM-DD`, lists and structs as
 * arrays and objects). Nested values convert the same way.
 */
export const plainValue: DuckDBValueConverter<PlainValue> = (value, type: DuckDBType, converter) => {
  if (value === null) return null;
  switch (type.typeId) {
    case DuckDBTypeId.BIGINT:
    case DuckDBTypeId.UBIGINT:
    case DuckDBTypeId.HUGEINT:
    case DuckDBTypeId.UHUGEINT:
      return integerOf(value);
    // Each unit has its own value class.
    case DuckDBTypeId.TIMESTAMP:
    case DuckDBTypeId.TIMESTAMP_TZ:
      return instantText((value as DuckDBTimestampValue | DuckDBTimestampTZValue).micros, 1000n, value);
    case DuckDBTypeId.TIMESTAMP_MS:
      return instantText((value as DuckDBTimestampMillisecondsValue).millis, 1n, value);
    case DuckDBTypeId.TIMESTAMP_S:
      return instantText((value as DuckDBTimestampSecondsValue).seconds, 1n, value, 1000n);
    case DuckDBTypeId.TIMESTAMP_NS:
      return instantText((value as DuckDBTimestampNanosecondsValue).nanos, 1_000_000n, value);
    default:
      // Nested values reach this converter again through `converter`.
      return JsonDuckDBValueConverter(value, type, converter);
  }
};

/**
 * Bounds on what rows take as JS values, estimated in DuckDB before any is converted (heapSizedSelect): about their
 * JSON's bytes for text and scalars, several times that for nested values (each element an object or more).
 */
export interface HeapBound {
  /** A batch is yielded before it would take more than this. */
  batch: number;
  /** A row alone taking more fails the read. */
  row: number;
  /** A chunk of DuckDB's (up to 2,048 rows) taking more fails the read before any of its rows is converted. */
  chunk: number;
}

/** What a nested value's elements take as JS objects, over what they take as JSON (`{"a":true}`: ~10 bytes, ~80). */
const NESTED_WEIGHT = 8;

/** About what a value takes as a JS value, measured in DuckDB: text and bytes by their length, the rest by its JSON. */
function heapSize(column: string, type: DuckDBType): string {
  switch (type.typeId) {
    case DuckDBTypeId.VARCHAR:
      return `coalesce(strlen(${column}) + 2, 4)`;
    case DuckDBTypeId.BLOB:
      // As `\xNN` text: four characters a byte.
      return `coalesce(octet_length(${column}) * 4 + 2, 4)`;
    case DuckDBTypeId.LIST:
    case DuckDBTypeId.ARRAY:
    case DuckDBTypeId.STRUCT:
    case DuckDBTypeId.MAP:
    case DuckDBTypeId.UNION:
      return `coalesce(strlen(to_json(${column})::varchar) * ${NESTED_WEIGHT}, 4)`;
    default:
      return `coalesce(strlen(to_json(${column})::varchar), 4)`;
  }
}

/**
 * Every column of `from` (a quoted table or view name, or a parenthesized query), then each one's size estimate
 * (heapSize; the result's second half of columns), as rowBatches with a HeapBound reads them. Text is measured by its
 * length, not written out as JSON: a row's one big value is mostly text, and its JSON would take DuckDB's memory twice.
 */
export async function heapSizedSelect(connection: DuckDBConnection, from: string): Promise<string> {
  const probe = await connection.prepare(`select * from ${from} limit 0`);
  try {
    const sizes = Array.from({ length: probe.columnCount }, (_, i) =>
      heapSize(quoteIdent(probe.columnName(i)), probe.columnType(i)),
    );
    return `select *, ${sizes.join(', ')} from ${from}`;
  } finally {
    probe.destroySync();
  }
}

/**
 * Yields a streamed result's rows in batches of at most `batchRows`, keyed by DuckDB's deduplicated column names,
 * converting one chunk at a time (memory stays bounded by a chunk and a batch). Checks `signal` between chunks.
 *
 * With `heapBound` (the result from heapSizedSelect), a batch also stops at `heapBound.batch` bytes, and a chunk past
 * `heapBound.chunk` or a row past `heapBound.row` fails the read before the chunk is converted: a chunk of 2,048 rows
 * is DuckDB's to size, and as JS values it can take many times what it takes in DuckDB (lists of one-field structs,
 * a few MB there, ran the executor's heap out and ended it).
 */
export async function* rowBatches(
  result: DuckDBResult,
  batchRows: number,
  signal?: AbortSignal,
  heapBound?: HeapBound,
): AsyncGenerator<Row[]> {
  const all = result.deduplicatedColumnNames();
  const names = heapBound ? all.slice(0, all.length / 2) : all;
  let batch: Row[] = [];
  let batchBytes = 0;
  let read = 0;
  for (;;) {
    signal?.throwIfAborted();
    const chunk = await result.fetchChunk();
    if (!chunk || chunk.rowCount === 0) break;
    const rowSizes = heapBound ? chunkRowSizes(chunk, names.length, read, heapBound) : undefined;
    // The value columns only: a bound's size columns were read above.
    const columns = names.map((_, c) => chunk.convertColumnValues(c, plainValue));
    for (let r = 0; r < chunk.rowCount; r++) {
      const rowBytes = rowSizes?.[r] ?? 0;
      if (heapBound && batch.length > 0 && batchBytes + rowBytes > heapBound.batch) {
        yield batch;
        batch = [];
        batchBytes = 0;
      }
      const row: Row = {};
      // Defined, not assigned: a column named __proto__ would otherwise set the row's prototype (or vanish).
      for (let c = 0; c < names.length; c++) {
        Object.defineProperty(row, names[c]!, {
          value: columns[c]![r] ?? null,
          enumerable: true,
          writable: true,
          configurable: true,
        });
      }
      batch.push(row);
      batchBytes += rowBytes;
      if (batch.length >= batchRows) {
        yield batch;
        batch = [];
        batchBytes = 0;
      }
    }
    read += chunk.rowCount;
  }
  if (batch.length > 0) yield batch;
}

/** Each row's size estimate from the chunk's size columns (after its `width` value columns), checked against `bound`. */
function chunkRowSizes(chunk: DuckDBDataChunk, width: number, before: number, bound: HeapBound): number[] {
  const sizes = new Array<number>(chunk.rowCount).fill(0);
  for (let c = 0; c < width; c++) {
    const vector = chunk.getColumnVector(width + c);
    for (let r = 0; r < chunk.rowCount; r++) sizes[r]! += Number(vector.getItem(r) ?? 0);
  }
  let total = 0;
  for (const [r, size] of sizes.entries()) {
    if (size > bound.row)
      throw new ConnectorError(
        `row ${before + r + 1} takes about ${size} bytes as JS values, more than a batch may hold (${bound.row}): select fewer or shorter columns in the node before`,
        'config_error',
      );
    total += size;
  }
  if (total > bound.chunk)
    throw new ConnectorError(
      `rows ${before + 1} to ${before + chunk.rowCount} take about ${total} bytes as JS values, more than ${bound.chunk} converted at once (${chunk.rowCount} rows, DuckDB's chunk): select fewer or shorter columns in the node before`,
      'config_error',
    );
  return sizes;
}
