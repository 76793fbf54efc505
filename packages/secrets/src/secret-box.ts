/**
 * The one AES-256-GCM box of the platform's secrets, at rest and in transit between services (format in
 * sealed-format.ts). seal() always uses the current key; open() takes the key named by the value's key id, and
 * tries every configured key for a v1 value, which names none. Additional data (a tenant, a resource, a field) binds
 * a value to where it belongs so a copy elsewhere does not open. Messages here never include a secret or a key.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { IV_BYTES, TAG_BYTES, parseSealed, v2Header } from './sealed-format.js';
import { KEY_BYTES, keyIdOf, type SecretKeys } from './secret-keys.js';

export { SEALED_PREFIX, isSealed } from './sealed-format.js';
export { parseSecretsKey } from './secret-keys.js';

/** Thrown when a value does not open: not sealed, an unknown key, other additional data, or tampered with. */
export class SecretOpenError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SecretOpenError';
  }
}

export interface OpenOptions {
  /**
   * The additional data a v1 value was sealed with, when it differs from today's binding (a connector secret bound
   * its field name only). Used for v1 values alone: a v2 value opens with `aad` or not at all. Default: `aad`.
   */
  v1Aad?: string;
}

function checkedKey(key: Buffer): Buffer {
  if (key.length !== KEY_BYTES) throw new Error(`secrets key must be ${KEY_BYTES} bytes, got ${key.length}`);
  return Buffer.from(key);
}

function decrypt(key: Buffer, raw: Buffer, aad: Buffer): string {
  const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, IV_BYTES));
  decipher.setAAD(aad);
  decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
  return Buffer.concat([decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
}

/** Seals and opens under the service's keys, which no caller handles afterwards. */
export class SecretBox {
  private readonly current: Buffer;
  /** Every key by its id, the current one included. */
  private readonly byId = new Map<string, Buffer>();
  /** The current key first: a v1 value most likely opens with it. */
  private readonly all: Buffer[] = [];
  /** The id written into every value sealed now. */
  readonly currentKeyId: string;

  /** A single key is a key ring without previous keys. */
  constructor(keys: Buffer | SecretKeys) {
    const ring: SecretKeys = Buffer.isBuffer(keys) ? { current: keys, previous: [] } : keys;
    this.current = checkedKey(ring.current);
    this.currentKeyId = keyIdOf(this.current);
    for (const key of [this.current, ...ring.previous.map(checkedKey)]) {
      const kid = keyIdOf(key);
      const known = this.byId.get(kid);
      if (known?.equals(key)) continue; // the same key listed twice
      if (known) throw new Error(`two of the configured secrets keys share the key id ${kid}: replace one of them`);
      this.byId.set(kid, key);
      this.all.push(key);
    }
  }

  /** `aad` is bound to the ciphertext: open() needs the same. */
  seal(plain: string, aad: string): string {
    const header = v2Header(this.currentKeyId);
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.current, iv);
    cipher.setAAD(Buffer.from(header + aad, 'utf8'));
    const ciphertext = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return header + Buffer.concat([iv, cipher.getAuthTag(), ciphertext]).toString('base64');
  }

  /** `what` names the value in the error (e.g. `secret field "password"`), never its content. */
  open(sealed: string, aad: string, what = 'the secret', options: OpenOptions = {}): string {
    const parsed = parseSealed(sealed);
    const raw = parsed === undefined ? Buffer.alloc(0) : Buffer.from(parsed.payload, 'base64');
    if (parsed === undefined || raw.length < IV_BYTES + TAG_BYTES)
      throw new SecretOpenError(`${what} is not a sealed value`);
    if (parsed.version === 2) {
      const key = this.byId.get(parsed.kid);
      if (!key)
        throw new SecretOpenError(`${what} was sealed under a key that is not configured (key id ${parsed.kid})`);
      try {
        return decrypt(key, raw, Buffer.from(parsed.header + aad, 'utf8'));
      } catch {
        throw new SecretOpenError(`${what} could not be decrypted: it belongs elsewhere or was tampered with`);
      }
    }
    const v1Aad = Buffer.from(options.v1Aad ?? aad, 'utf8');
    for (const key of this.all) {
      try {
        return decrypt(key, raw, v1Aad);
      } catch {
        // GCM's tag decides: try the next key.
      }
    }
    throw new SecretOpenError(`${what} could not be decrypted: wrong key or tampered value`);
  }

  /** Whether a value is written as seal() writes it now (v2 under the current key); it may still fail to open. */
  isCurrent(sealed: string): boolean {
    const parsed = parseSealed(sealed);
    return parsed?.version === 2 && parsed.kid === this.currentKeyId;
  }

  /**
   * The value sealed anew under the current key and `aad`, or undefined when it already is current. Throws
   * SecretOpenError when it does not open (with `aad`, or `options.v1Aad` for a v1 value).
   */
  reseal(sealed: string, aad: string, what = 'the secret', options: OpenOptions = {}): string | undefined {
    if (this.isCurrent(sealed)) return undefined;
    return this.seal(this.open(sealed, aad, what, options), aad);
  }
}
