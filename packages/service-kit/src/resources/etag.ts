import { createHash } from 'node:crypto';

/** A strong ETag from the parts that change whenever the resource does (id, updated_at, version). */
export function etagOf(...parts: (string | number)[]): string {
  return `"${createHash('sha256').update(parts.join('|')).digest('base64url').slice(0, 22)}"`;
}
