/**
 * DuckDB values back to plain JS for drivers: 64-bit and wider integers become numbers when safe (else decimal
 * strings), DECIMAL stays a string (no precision lost), timestamps become ISO strings, dates `YYYY-MM-DD`,
 * lists and structs arrays and objects; the rest follows DuckDB's own JSON-safe conversion.
 */
import duckdb from '@duckdb/node-api';
import type { DuckDBType, DuckDBValue, DuckDBValueConverter, Json } from '@duckdb/node-api';

const { DuckDBTypeId, JsonDuckDBValueConverter, dateFromTimestampTZValue, dateFromTimestampValue } = duckdb;

export type PlainValue = Json;

function integerOf(value: DuckDBValue): number | string {
  const big = value as bigint;
  return big >= BigInt(Number.MIN_SAFE_INTEGER) && big <= BigInt(Number.MAX_SAFE_INTEGER)
    ? Number(big)
    : big.toString();
}

function isoOf(date: Date, fallback: DuckDBValue): string {
  // Infinity and dates beyond JS's range keep DuckDB's own spelling.
  return Number.isNaN(date.getTime()) ? String(fallback) : date.toISOString();
}

export const plainValueConverter: DuckDBValueConverter<PlainValue> = (value, type: DuckDBType, converter) => {
  if (value === null) return null;
  switch (type.typeId) {
    case DuckDBTypeId.BIGINT:
    case DuckDBTypeId.UBIGINT:
    case DuckDBTypeId.HUGEINT:
    case DuckDBTypeId.UHUGEINT:
      return integerOf(value);
    case DuckDBTypeId.TIMESTAMP:
    case DuckDBTypeId.TIMESTAMP_MS:
    case DuckDBTypeId.TIMESTAMP_S:
    case DuckDBTypeId.TIMESTAMP_NS:
      return isoOf(dateFromTimestampValue(value), value);
    case DuckDBTypeId.TIMESTAMP_TZ:
      return isoOf(dateFromTimestampTZValue(value), value);
    default:
      return JsonDuckDBValueConverter(value, type, converter);
  }
};
