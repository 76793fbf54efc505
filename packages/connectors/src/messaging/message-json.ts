/** Messages as rows and rows as messages: a JSON object body is a row; any other body is `{ value }`. */
import type { Row } from '../types.js';

/** JSON for values JSON.stringify cannot take as they are: bigints (as numbers when safe, else strings), bytes as base64. */
export function jsonReplacer(_key: string, value: unknown): unknown {
  if (typeof value === 'bigint') {
    const safe = value <= BigInt(Number.MAX_SAFE_INTEGER) && value >= BigInt(Number.MIN_SAFE_INTEGER);
    return safe ? Number(value) : value.toString();
  }
  if (value !== null && typeof value === 'object' && (value as { type?: unknown }).type === 'Buffer') {
    return Buffer.from((value as { data: number[] }).data).toString('base64');
  }
  return value;
}

export function encodeMessage(row: Row): Buffer {
  return Buffer.from(JSON.stringify(row, jsonReplacer), 'utf8');
}

export function decodeMessage(body: Uint8Array | string): Row {
  const text =
    typeof body === 'string' ? body : Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { value: text };
  }
  return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Row) : { value: parsed };
}
