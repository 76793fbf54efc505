/**
 * How a sealed value is written. Current (v2): `enc:v2:<kid>:` + base64(iv 12 | tag 16 | ciphertext), where kid is
 * the sealing key's id (secret-keys.ts); the header `enc:v2:<kid>:` is authenticated with the caller's additional
 * data, so neither the version nor the key id can be changed without the value failing to open. Read only (v1):
 * `enc:v1:` + the same bytes, and the webhook dispatcher's older `v1:` prefix; they carry no key id.
 */

export const IV_BYTES = 12;
export const TAG_BYTES = 16;
/** The prefix of everything seal() writes today, before the key id. */
export const SEALED_PREFIX = 'enc:v2:';
const V1_PREFIXES = ['enc:v1:', 'v1:'] as const;
const V2_FORMAT = /^enc:v2:([0-9a-f]{8}):(.*)$/s;

export type SealedValue =
  { version: 2; kid: string; header: string; payload: string } | { version: 1; payload: string };

/** The parts of a sealed value, or undefined when it is not written as one. */
export function parseSealed(sealed: string): SealedValue | undefined {
  const v2 = V2_FORMAT.exec(sealed);
  if (v2)
    return {
      version: 2,
      kid: v2[1] as string,
      header: `${SEALED_PREFIX}${v2[1] as string}:`,
      payload: v2[2] as string,
    };
  if (sealed.startsWith(SEALED_PREFIX)) return undefined;
  const v1 = V1_PREFIXES.find((p) => sealed.startsWith(p));
  return v1 === undefined ? undefined : { version: 1, payload: sealed.slice(v1.length) };
}

/** The header seal() writes with a key id; also the authenticated prefix of v2 additional data. */
export function v2Header(kid: string): string {
  return `${SEALED_PREFIX}${kid}:`;
}

/** Whether a value has the shape of a sealed value (it may still fail to open). */
export function isSealed(value: unknown): value is string {
  return typeof value === 'string' && parseSealed(value) !== undefined;
}
