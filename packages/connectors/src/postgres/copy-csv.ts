/**
 * Encodes rows as PostgreSQL COPY CSV. NULL is an unquoted empty field and every string is quoted, so empty
 * strings, quotes, delimiters, newlines and a lone `\.` all survive.
 */
import { ConnectorError } from '../connector-error.js';
import type { Row } from '../types.js';

/** The column list of a write: every key of the first batch, in order of first appearance. */
export function columnsOf(rows: readonly Row[]): string[] {
  const seen = new Set<string>();
  for (const row of rows) for (const key of Object.keys(row)) seen.add(key);
  return [...seen];
}

const quote = (text: string): string => `"${text.replace(/"/g, '""')}"`;

/** One field. Objects and arrays are written as JSON (for json/jsonb columns); bytes as bytea hex. */
export function encodeCsvValue(value: unknown): string {
  if (value === null || value === undefined) return '';
  switch (typeof value) {
    case 'string':
      return quote(value);
    case 'number':
      // String() gives NaN, Infinity and -Infinity exactly as PostgreSQL's float input spells them.
      return String(value);
    case 'bigint':
      return value.toString();
    case 'boolean':
      return value ? 'true' : 'false';
    case 'object':
      if (value instanceof Date) {
        if (Number.isNaN(value.getTime())) throw new ConnectorError('cannot write an invalid Date', 'config_error');
        return quote(value.toISOString());
      }
      if (value instanceof Uint8Array)
        return `\\x${Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('hex')}`;
      return quote(JSON.stringify(value));
    default:
      throw new ConnectorError(`cannot write a value of type ${typeof value}`, 'config_error');
  }
}

/** One CSV chunk for a batch; a key outside `columns` is an error rather than a silently dropped value. */
export function encodeCsvBatch(rows: readonly Row[], columns: readonly string[]): string {
  const known = new Set(columns);
  let out = '';
  for (const row of rows) {
    for (const key of Object.keys(row)) {
      if (!known.has(key)) {
        throw new ConnectorError(`row has column "${key}" that the first batch did not have`, 'config_error');
      }
    }
    out += columns.map((column) => encodeCsvValue(row[column])).join(',') + '\n';
  }
  return out;
}
