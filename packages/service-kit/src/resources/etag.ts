import { hash } from 'node:crypto';

/**
 * A strong ETag from the parts that change whenever the resource does (id, updated_at, version). One-shot `hash`:
 * the same digest as createHash(...).update(...).digest(...) at half the CPU, without a Hash object per GET.
 */
export function etagOf(...parts: (string | number)[]): string {
  return `"${hash('sha256', parts.join('|'), 'base64url').slice(0, 22)}"`;
}
