/**
 * The DuckDB column type a JS value asks for, and how two of them widen. Drivers hand us plain rows without type
 * metadata, so a source table's columns are inferred from the values and widened when a later batch disagrees.
 */
export type ColumnKind = 'BOOLEAN' | 'BIGINT' | 'HUGEINT' | 'DOUBLE' | 'VARCHAR' | 'TIMESTAMPTZ' | 'BLOB' | 'JSON';

/** The kind of one non-null value. */
export function kindOfValue(value: unknown): ColumnKind {
  switch (typeof value) {
    case 'boolean':
      return 'BOOLEAN';
    case 'number':
      return Number.isSafeInteger(value) ? 'BIGINT' : 'DOUBLE';
    case 'bigint':
      return 'HUGEINT';
    case 'string':
      return 'VARCHAR';
    case 'object':
      if (value instanceof Date) return 'TIMESTAMPTZ';
      if (value instanceof Uint8Array) return 'BLOB';
      return 'JSON';
    default:
      return 'VARCHAR';
  }
}

const NUMERIC_RANK: Partial<Record<ColumnKind, number>> = { BIGINT: 1, HUGEINT: 2, DOUBLE: 3 };

/** The narrowest kind holding both; numbers widen among themselves, anything else mixed becomes text. */
export function widen(a: ColumnKind, b: ColumnKind): ColumnKind {
  if (a === b) return a;
  const ra = NUMERIC_RANK[a];
  const rb = NUMERIC_RANK[b];
  if (ra !== undefined && rb !== undefined) return ra > rb ? a : b;
  return 'VARCHAR';
}

/** The value as the column's kind expects it (after widening, e.g. a Date in a VARCHAR column). */
export function toColumnValue(value: unknown, kind: ColumnKind): unknown {
  if (value === null || value === undefined) return null;
  switch (kind) {
    case 'VARCHAR':
      if (typeof value === 'string') return value;
      if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value.toISOString();
      if (value instanceof Uint8Array) return Buffer.from(value).toString('hex');
      if (typeof value === 'object') return JSON.stringify(value);
      if (typeof value === 'number' || typeof value === 'bigint' || typeof value === 'boolean') return String(value);
      return null;
    case 'JSON':
      return JSON.stringify(value);
    case 'TIMESTAMPTZ':
      return value instanceof Date && !Number.isNaN(value.getTime()) ? value : null;
    case 'HUGEINT':
      return typeof value === 'bigint' ? value : BigInt(value as number);
    case 'DOUBLE':
      return typeof value === 'bigint' ? Number(value) : value;
    default:
      return value;
  }
}
