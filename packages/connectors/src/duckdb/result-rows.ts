/**
 * The one way a DuckDB result becomes JS rows (the DuckDB connector's row read, the executor's row sinks and the llm
 * decision's sample): one value conversion, one chunk at a time. docs/type-mapping.md, "Rows in JS".
 */
import duckdb, {
  type DuckDBResult,
  type DuckDBType,
  type DuckDBValue,
  type DuckDBValueConverter,
  type Json,
} from '@duckdb/node-api';
import type { Row } from '../types.js';

const {
  DuckDBTypeId,
  JsonDuckDBValueConverter,
  dateFromTimestampMillisecondsValue,
  dateFromTimestampNanosecondsValue,
  dateFromTimestampSecondsValue,
  dateFromTimestampTZValue,
  dateFromTimestampValue,
} = duckdb;

/** A value of a row read from DuckDB: JSON-safe, or a Date for a timestamp. */
export type PlainValue = Json | Date;

function integerOf(value: DuckDBValue): number | string {
  const big = value as bigint;
  return big >= BigInt(Number.MIN_SAFE_INTEGER) && big <= BigInt(Number.MAX_SAFE_INTEGER)
    ? Number(big)
    : big.toString();
}

function instantOf(toDate: (value: DuckDBValue) => Date, value: DuckDBValue): Date | string {
  // ±infinity and instants beyond a Date's range (which node-api refuses with an error) keep DuckDB's own spelling.
  try {
    return toDate(value);
  } catch {
    return String(value);
  }
}

/**
 * 64-bit and wider integers as numbers when safe (else decimal strings), timestamps as Dates, everything else as
 * DuckDB's own JSON-safe conversion (DECIMAL as its exact text, DATE as `YYYY-MM-DD`, lists and structs as arrays and
 * objects). Nested values convert the same way.
 */
export const plainValue: DuckDBValueConverter<PlainValue> = (value, type: DuckDBType, converter) => {
  if (value === null) return null;
  switch (type.typeId) {
    case DuckDBTypeId.BIGINT:
    case DuckDBTypeId.UBIGINT:
    case DuckDBTypeId.HUGEINT:
    case DuckDBTypeId.UHUGEINT:
      return integerOf(value);
    // Each unit has its own value class (the microsecond converter refuses the others).
    case DuckDBTypeId.TIMESTAMP:
      return instantOf(dateFromTimestampValue, value);
    case DuckDBTypeId.TIMESTAMP_MS:
      return instantOf(dateFromTimestampMillisecondsValue, value);
    case DuckDBTypeId.TIMESTAMP_S:
      return instantOf(dateFromTimestampSecondsValue, value);
    case DuckDBTypeId.TIMESTAMP_NS:
      return instantOf(dateFromTimestampNanosecondsValue, value);
    case DuckDBTypeId.TIMESTAMP_TZ:
      return instantOf(dateFromTimestampTZValue, value);
    default:
      // Nested values reach this converter again through `converter`; what comes back up is JSON-safe or a Date.
      return JsonDuckDBValueConverter(value, type, converter as DuckDBValueConverter<Json>);
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
