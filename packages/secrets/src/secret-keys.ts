/**
 * The keys of the platform's secrets: `SECRETS_KEY` seals, it and `SECRETS_KEYS_PREVIOUS` open, so a key can be
 * rotated without a moment when stored values do not open. A key is named in a sealed value by its key id, a
 * one-way tag of the key (never the key). Messages here never include a key.
 */
import { createHmac } from 'node:crypto';

export const KEY_BYTES = 32;

/** `current` seals and opens; each of `previous` only opens (values sealed before a rotation). */
export interface SecretKeys {
  current: Buffer;
  previous: readonly Buffer[];
}

/** Parses one key: 64 hex characters or base64 (or base64url) of 32 bytes. `name` is what the error calls it. */
export function parseSecretsKey(s: string, name = 'SECRETS_KEY'): Buffer {
  const text = s.trim();
  if (/^[0-9a-fA-F]{64}$/.test(text)) return Buffer.from(text, 'hex');
  if (/^[A-Za-z0-9+/_-]+={0,2}$/.test(text)) {
    const key = Buffer.from(text, text.includes('-') || text.includes('_') ? 'base64url' : 'base64');
    if (key.length === KEY_BYTES) return key;
  }
  throw new Error(
    `${name} must be ${KEY_BYTES} bytes written as 64 hex characters or as base64 ` +
      `(got ${text.length} characters that are neither)`,
  );
}

/** Parses SECRETS_KEYS_PREVIOUS: comma-separated keys, empty entries ignored; an error names the entry by position. */
export function parsePreviousSecretsKeys(s: string | undefined): Buffer[] {
  const entries = (s ?? '')
    .split(',')
    .map((e) => e.trim())
    .filter((e) => e.length > 0);
  return entries.map((entry, i) => parseSecretsKey(entry, `SECRETS_KEYS_PREVIOUS entry ${i + 1}`));
}

/**
 * The key id written into a sealed value: 8 hex characters of an HMAC under the key, so it tells keys apart
 * without revealing anything about them (and the same key always has the same id, on every service).
 */
export function keyIdOf(key: Buffer): string {
  return createHmac('sha256', key).update('conduit secrets key id').digest('hex').slice(0, 8);
}
