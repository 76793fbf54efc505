/**
 * Secret fields of a connector config: masked in answers, kept on update when sent masked, and encrypted at rest
 * with AES-256-GCM. Messages here never include a secret or the key.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { getDriver } from './registry.js';
import { SECRET_MASK } from './secret-mask.js';

export { SECRET_MASK };

const ENCRYPTED_PREFIX = 'enc:v1:';
const IV_BYTES = 12;
const TAG_BYTES = 16;
const KEY_BYTES = 32;

function secretFields(type: string): readonly string[] {
  const driver = getDriver(type);
  if (!driver) throw new Error(`unknown connector type "${type}"`);
  return driver.info.secret_fields;
}

function hasValue(config: Record<string, unknown>, field: string): boolean {
  return Object.hasOwn(config, field) && config[field] !== undefined && config[field] !== null;
}

/** A copy with every present secret replaced by SECRET_MASK. */
export function maskSecrets(type: string, config: Record<string, unknown>): Record<string, unknown> {
  const out = { ...config };
  for (const field of secretFields(type)) {
    if (hasValue(out, field)) out[field] = SECRET_MASK;
  }
  return out;
}

/** On update: a secret sent as SECRET_MASK keeps the stored value (or is dropped when none is stored). */
export function mergeSecrets(
  type: string,
  incoming: Record<string, unknown>,
  stored: Record<string, unknown>,
): Record<string, unknown> {
  const out = { ...incoming };
  for (const field of secretFields(type)) {
    if (out[field] !== SECRET_MASK) continue;
    if (hasValue(stored, field)) out[field] = stored[field];
    else delete out[field];
  }
  return out;
}

/** Parses SECRETS_KEY: 64 hex characters or base64 of 32 bytes. */
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

function assertKey(key: Buffer): void {
  if (key.length !== KEY_BYTES) throw new Error(`secrets key must be ${KEY_BYTES} bytes, got ${key.length}`);
}

/** A copy with every secret encrypted; values already encrypted are left as they are. */
export function encryptSecrets(type: string, config: Record<string, unknown>, key: Buffer): Record<string, unknown> {
  assertKey(key);
  const out = { ...config };
  for (const field of secretFields(type)) {
    if (!hasValue(out, field)) continue;
    const value = out[field];
    if (typeof value !== 'string') throw new TypeError(`secret field "${field}" must be a string`);
    if (value.startsWith(ENCRYPTED_PREFIX)) continue;
    out[field] = encryptValue(value, key, field);
  }
  return out;
}

/** A copy with every encrypted secret decrypted; throws when a value was tampered with or the key is wrong. */
export function decryptSecrets(type: string, config: Record<string, unknown>, key: Buffer): Record<string, unknown> {
  assertKey(key);
  const out = { ...config };
  for (const field of secretFields(type)) {
    const value = out[field];
    if (typeof value === 'string' && value.startsWith(ENCRYPTED_PREFIX)) out[field] = decryptValue(value, key, field);
  }
  return out;
}

// The field name is bound as additional data, so a ciphertext moved to another field fails to decrypt.
function encryptValue(plain: string, key: Buffer, field: string): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(field, 'utf8'));
  const ciphertext = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  return ENCRYPTED_PREFIX + Buffer.concat([iv, cipher.getAuthTag(), ciphertext]).toString('base64');
}

function decryptValue(encrypted: string, key: Buffer, field: string): string {
  const raw = Buffer.from(encrypted.slice(ENCRYPTED_PREFIX.length), 'base64');
  if (raw.length < IV_BYTES + TAG_BYTES) throw new Error(`secret field "${field}" is not a valid encrypted value`);
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, IV_BYTES));
    decipher.setAAD(Buffer.from(field, 'utf8'));
    decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
    return Buffer.concat([decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
  } catch {
    throw new Error(`secret field "${field}" could not be decrypted: wrong key or tampered value`);
  }
}
