// Stands in for `node:crypto` in the browser bundle: the SDK only needs randomUUID (its Idempotency-Keys).
// crypto.randomUUID exists only in secure contexts (https, localhost); a console served over plain http elsewhere
// builds a version-4 UUID from getRandomValues, which every context has.
export function randomUUID(): string {
  if (typeof globalThis.crypto.randomUUID === 'function' && globalThis.isSecureContext)
    return globalThis.crypto.randomUUID();
  const bytes = globalThis.crypto.getRandomValues(new Uint8Array(16));
  bytes[6] = (bytes[6]! & 0x0f) | 0x40;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
