/**
 * The one way a DuckDB result becomes JS rows (the DuckDB connector's row read, the executor's row sinks and the llm
 * decision's sample): one value conversion, one chunk at a time. docs/type-mapping.md, "Rows in JS".
 */
import duckdb, {
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
import type { Row } from '../types.js';

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
 * Yields a streamed result's rows in batches of at most `batchRows`, keyed by DuckDB's deduplicated column names,
 * converting one chunk at a time (memory stays bounded by a chunk and a batch). Checks `signal` between chunks.
 */
export async function* rowBatches(
  result: DuckDBResult,
  batchRows: number,
  signal?: AbortSignal,
): AsyncGenerator<Row[]> {
  const names = result.deduplicatedColumnNames();
  let batch: Row[] = [];
  for (;;) {
    signal?.throwIfAborted();
    const chunk = await result.fetchChunk();
    if (!chunk || chunk.rowCount === 0) break;
    const columns = chunk.convertColumns(plainValue);
    for (let r = 0; r < chunk.rowCount; r++) {
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
      if (batch.length >= batchRows) {
        yield batch;
        batch = [];
      }
    }
  }
  if (batch.length > 0) yield batch;
}
