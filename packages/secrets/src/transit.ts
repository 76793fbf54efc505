/**
 * Secrets crossing a process boundary (RPC over Redis Streams) travel sealed, bound to the tenant of the call and
 * to what they are, so a ciphertext seen on a stream opens neither for another tenant nor as another field.
 * The sender seals every listed field present as a string; the receiver opens the same list.
 */
import type { SecretBox } from './secret-box.js';
import { isSealed } from './secret-box.js';

/** The additional data of a secret in transit: `transit:<tenant>:<what>`, e.g. `transit:t1:connector.config.password`. */
export function transitAad(tenantId: string, what: string): string {
  return `transit:${tenantId}:${what}`;
}

/**
 * A copy of `obj` with each of `fields` that holds a string sealed for transit, except values equal to `keep`
 * (e.g. the "********" that asks to keep a stored secret, which is no secret).
 */
export function sealFieldsForTransit(
  box: SecretBox,
  obj: Record<string, unknown>,
  fields: Iterable<string>,
  tenantId: string,
  scope: string,
  keep?: string,
): Record<string, unknown> {
  const out = { ...obj };
  for (const field of fields) {
    const value = out[field];
    if (typeof value !== 'string' || value === keep) continue;
    out[field] = box.seal(value, transitAad(tenantId, `${scope}.${field}`));
  }
  return out;
}

/**
 * The inverse of sealFieldsForTransit. A listed field holding a string that is neither sealed nor `keep` is refused:
 * the sender broke the rule, and the value would be a secret that crossed in clear.
 */
export function openFieldsFromTransit(
  box: SecretBox,
  obj: Record<string, unknown>,
  fields: Iterable<string>,
  tenantId: string,
  scope: string,
  keep?: string,
): Record<string, unknown> {
  const out = { ...obj };
  for (const field of fields) {
    const value = out[field];
    if (typeof value !== 'string' || value === keep) continue;
    if (!isSealed(value)) throw new Error(`${scope}.${field} arrived in clear: secrets must cross services sealed`);
    out[field] = box.open(value, transitAad(tenantId, `${scope}.${field}`), `${scope}.${field}`);
  }
  return out;
}
