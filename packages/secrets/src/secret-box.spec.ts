import { createCipheriv, randomBytes } from 'node:crypto';
import { SecretBox, SecretOpenError, isSealed, parseSecretsKey } from './secret-box.js';
import { openFieldsFromTransit, sealFieldsForTransit } from './transit.js';
import { secretsKeyEnv } from './secrets-key-env.js';

const key = randomBytes(32);
const box = new SecretBox(key);

/** A value as the webhook dispatcher and the catalog wrote them before this package: same bytes, own prefix. */
function legacySeal(prefix: string, plain: string, aad: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(aad, 'utf8'));
  const ct = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  return prefix + Buffer.concat([iv, cipher.getAuthTag(), ct]).toString('base64');
}

describe('SecretBox', () => {
  it('seals to enc:v1: without the plaintext, and opens with the same additional data', () => {
    const sealed = box.seal('hunter2-password', 'password');
    expect(sealed.startsWith('enc:v1:')).toBe(true);
    expect(sealed).not.toContain('hunter2');
    expect(isSealed(sealed)).toBe(true);
    expect(box.open(sealed, 'password')).toBe('hunter2-password');
  });

  it('opens what was stored before: connectors enc:v1: (field bound) and webhooks v1: (id bound)', () => {
    expect(box.open(legacySeal('enc:v1:', 'pg-secret', 'password'), 'password')).toBe('pg-secret');
    expect(box.open(legacySeal('v1:', 'whsec-plain-secret', 'webhook_01'), 'webhook_01')).toBe('whsec-plain-secret');
  });

  it('refuses other additional data, another key, a tampered value and a plain string, naming no secret', () => {
    const sealed = box.seal('s3cr3t-value', 'password');
    expect(() => box.open(sealed, 'token')).toThrow(SecretOpenError);
    expect(() => new SecretBox(randomBytes(32)).open(sealed, 'password')).toThrow(/wrong key or tampered value/);
    const raw = Buffer.from(sealed.slice('enc:v1:'.length), 'base64');
    raw[raw.length - 1] = (raw[raw.length - 1] ?? 0) ^ 1;
    expect(() => box.open(`enc:v1:${raw.toString('base64')}`, 'password')).toThrow(SecretOpenError);
    expect(() => box.open('s3cr3t-value', 'password', 'config.password')).toThrow('config.password is not a sealed value');
    expect(isSealed('s3cr3t-value')).toBe(false);
  });

  it('needs a 32-byte key', () => {
    expect(() => new SecretBox(randomBytes(16))).toThrow('secrets key must be 32 bytes, got 16');
  });
});

describe('parseSecretsKey and secretsKeyEnv', () => {
  it('reads 64 hex characters and base64 of 32 bytes', () => {
    expect(parseSecretsKey(key.toString('hex'))).toEqual(key);
    expect(parseSecretsKey(key.toString('base64'))).toEqual(key);
    expect(parseSecretsKey(key.toString('base64url'))).toEqual(key);
  });

  it('refuses anything else with one clear line that does not repeat the value', () => {
    const result = secretsKeyEnv().safeParse('too-short-key');
    expect(result.success).toBe(false);
    const message = result.error?.issues[0]?.message ?? '';
    expect(message).toMatch(/^SECRETS_KEY must be 32 bytes written as 64 hex characters or as base64/);
    expect(message).not.toContain('too-short-key');
  });
});

describe('fields in transit', () => {
  const fields = ['password', 'token'];

  it('seals listed string fields bound to tenant and scope, keeps the mask and other fields as they are', () => {
    const sent = sealFieldsForTransit(box, { host: 'db', password: 'pw-123456', token: '********', port: 5432 }, fields, 't1', 'connector.config', '********');
    expect(sent['host']).toBe('db');
    expect(sent['token']).toBe('********');
    expect(isSealed(sent['password'])).toBe(true);
    expect(JSON.stringify(sent)).not.toContain('pw-123456');
    expect(openFieldsFromTransit(box, sent, fields, 't1', 'connector.config', '********')).toEqual({
      host: 'db',
      password: 'pw-123456',
      token: '********',
      port: 5432,
    });
  });

  it('does not open for another tenant or scope', () => {
    const sent = sealFieldsForTransit(box, { password: 'pw-123456' }, fields, 't1', 'connector.config');
    expect(() => openFieldsFromTransit(box, sent, fields, 't2', 'connector.config')).toThrow(SecretOpenError);
    expect(() => openFieldsFromTransit(box, sent, fields, 't1', 'webhook')).toThrow(SecretOpenError);
  });

  it('refuses a listed field that arrived in clear', () => {
    expect(() => openFieldsFromTransit(box, { password: 'pw-123456' }, fields, 't1', 'connector.config')).toThrow(
      'connector.config.password arrived in clear: secrets must cross services sealed',
    );
  });
});
