/**
 * The one AES-256-GCM format of the platform's secrets, at rest and in transit between services:
 * `enc:v1:` + base64(iv 12 bytes | tag 16 bytes | ciphertext), with caller-chosen additional data (a field name,
 * a resource id, a tenant) so a ciphertext moved elsewhere does not open. Values written by the webhook dispatcher
 * before this package (`v1:` + the same bytes) still open. Messages here never include a secret or the key.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

const IV_BYTES = 12;
const TAG_BYTES = 16;
const KEY_BYTES = 32;
/** What seal() writes. */
export const SEALED_PREFIX = 'enc:v1:';
/** Also read: the webhook dispatcher's earlier prefix, same bytes after it. */
const LEGACY_PREFIXES = ['v1:'] as const;

/** Parses SECRETS_KEY: 64 hex characters or base64 (or base64url) of 32 bytes. */
export function parseSecretsKey(s: string): Buffer {
  const text = s.trim();
  if (/^[0-9a-fA-F]{64}$/.test(text)) return Buffer.from(text, 'hex');
  if (/^[A-Za-z0-9+/_-]+={0,2}$/.test(text)) {
    const key = Buffer.from(text, text.includes('-') || text.includes('_') ? 'base64url' : 'base64');
    if (key.length === KEY_BYTES) return key;
  }
  throw new Error(
    `SECRETS_KEY must be ${KEY_BYTES} bytes written as 64 hex characters or as base64 ` +
      `(got ${text.length} characters that are neither)`,
  );
}

function payloadOf(sealed: string): string | undefined {
  if (sealed.startsWith(SEALED_PREFIX)) return sealed.slice(SEALED_PREFIX.length);
  const legacy = LEGACY_PREFIXES.find((p) => sealed.startsWith(p));
  return legacy === undefined ? undefined : sealed.slice(legacy.length);
}

/** Whether a value has the shape of a sealed value (it may still fail to open). */
export function isSealed(value: unknown): value is string {
  return typeof value === 'string' && payloadOf(value) !== undefined;
}

/** Thrown when a value does not open: not sealed, another key, other additional data, or tampered with. */
export class SecretOpenError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SecretOpenError';
  }
}

/** Seals and opens under one key, which no caller handles afterwards. */
export class SecretBox {
  private readonly key: Buffer;

  constructor(key: Buffer) {
    if (key.length !== KEY_BYTES) throw new Error(`secrets key must be ${KEY_BYTES} bytes, got ${key.length}`);
    this.key = Buffer.from(key);
  }

  /** `aad` is bound to the ciphertext: open() needs the same. */
  seal(plain: string, aad: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(Buffer.from(aad, 'utf8'));
    const ciphertext = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return SEALED_PREFIX + Buffer.concat([iv, cipher.getAuthTag(), ciphertext]).toString('base64');
  }

  /** `what` names the value in the error (e.g. `secret field "password"`), never its content. */
  open(sealed: string, aad: string, what = 'the secret'): string {
    const payload = payloadOf(sealed);
    const raw = payload === undefined ? Buffer.alloc(0) : Buffer.from(payload, 'base64');
    if (raw.length < IV_BYTES + TAG_BYTES) throw new SecretOpenError(`${what} is not a sealed value`);
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key, raw.subarray(0, IV_BYTES));
      decipher.setAAD(Buffer.from(aad, 'utf8'));
      decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
      return Buffer.concat([decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
    } catch {
      throw new SecretOpenError(`${what} could not be decrypted: wrong key or tampered value`);
    }
  }
}
