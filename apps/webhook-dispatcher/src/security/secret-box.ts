/**
 * Webhook secrets at rest: AES-256-GCM under SECRETS_KEY, the webhook id bound as additional data so a ciphertext
 * copied onto another webhook does not decrypt. Messages here never include a secret or the key.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

const IV_BYTES = 12;
const TAG_BYTES = 16;
const KEY_BYTES = 32;
const VERSION = 'v1:';

/** Parses SECRETS_KEY: 64 hex characters or base64 of 32 bytes (the catalog reads the same variable the same way). */
export function parseSecretsKey(s: string): Buffer {
  const text = s.trim();
  if (/^[0-9a-fA-F]{64}$/.test(text)) return Buffer.from(text, 'hex');
  if (/^[A-Za-z0-9+/_-]+={0,2}$/.test(text)) {
    const key = Buffer.from(text, text.includes('-') || text.includes('_') ? 'base64url' : 'base64');
    if (key.length === KEY_BYTES) return key;
  }
  throw new Error(`SECRETS_KEY must be ${KEY_BYTES} bytes written as 64 hex characters or as base64 (got ${text.length} characters that are neither)`);
}

export class SecretBox {
  constructor(private readonly key: Buffer) {
    if (key.length !== KEY_BYTES) throw new Error(`secrets key must be ${KEY_BYTES} bytes, got ${key.length}`);
  }

  seal(plain: string, webhookId: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(Buffer.from(webhookId, 'utf8'));
    const ciphertext = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return VERSION + Buffer.concat([iv, cipher.getAuthTag(), ciphertext]).toString('base64');
  }

  open(sealed: string, webhookId: string): string {
    const raw = Buffer.from(sealed.startsWith(VERSION) ? sealed.slice(VERSION.length) : '', 'base64');
    if (raw.length < IV_BYTES + TAG_BYTES) throw new Error(`the secret of webhook ${webhookId} is not a sealed value`);
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key, raw.subarray(0, IV_BYTES));
      decipher.setAAD(Buffer.from(webhookId, 'utf8'));
      decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
      return Buffer.concat([decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
    } catch {
      throw new Error(`the secret of webhook ${webhookId} could not be decrypted: wrong key or tampered value`);
    }
  }
}
