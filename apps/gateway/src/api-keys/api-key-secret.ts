import { hash, randomBytes } from 'node:crypto';

export const API_KEY_PREFIX = 'cnd_';
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
/** 43 base62 characters carry 256 bits. */
const SECRET_LENGTH = 43;

/** A new API key: `cnd_` + 43 base62 characters from crypto.randomBytes. */
export function generateApiKey(): string {
  let out = '';
  while (out.length < SECRET_LENGTH) {
    for (const byte of randomBytes(64)) {
      // Rejection sampling: 248 = 4 * 62, so `byte % 62` stays uniform.
      if (byte < 248 && out.length < SECRET_LENGTH) out += BASE62[byte % 62];
    }
  }
  return API_KEY_PREFIX + out;
}

/** What is stored and looked up: the sha256 hex of the whole key (keys are random, so no salt is needed). */
export function hashApiKey(key: string): string {
  // The one-shot hash(): a key is hashed on every request, and it costs less than half of createHash().
  return hash('sha256', key, 'hex');
}

/** The 8 characters after `cnd_` (or the first 8 of a non-standard bootstrap key), shown to recognise a key. */
export function displayPrefixOf(key: string): string {
  const body = key.startsWith(API_KEY_PREFIX) ? key.slice(API_KEY_PREFIX.length) : key;
  return body.slice(0, 8);
}

/** A header value that could be a key: 24-256 printable ASCII characters, no spaces. */
export function isPlausibleApiKey(value: string): boolean {
  return value.length >= 24 && value.length <= 256 && /^[\x21-\x7e]+$/.test(value);
}
