import { createCipheriv, randomBytes } from 'node:crypto';
import { SecretBox, SecretOpenError, isSealed, parseSecretsKey } from './secret-box.js';
import { keyIdOf } from './secret-keys.js';
import { openFieldsFromTransit, sealFieldsForTransit } from './transit.js';
import { secretKeysOf, secretsEnv, secretsKeyEnv } from './secrets-key-env.js';
import { z } from 'zod';

const key = randomBytes(32);
const box = new SecretBox(key);

/** A value as the webhook dispatcher and the catalog wrote them before this package: same bytes, own prefix. */
function legacySeal(prefix: string, plain: string, aad: string, sealKey: Buffer = key): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', sealKey, iv);
  cipher.setAAD(Buffer.from(aad, 'utf8'));
  const ct = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  return prefix + Buffer.concat([iv, cipher.getAuthTag(), ct]).toString('base64');
}

describe('SecretBox', () => {
  it('seals to enc:v2:<key id>: without the plaintext, and opens with the same additional data', () => {
    const sealed = box.seal('hunter2-password', 'password');
    expect(sealed).toMatch(new RegExp(`^enc:v2:${keyIdOf(key)}:[A-Za-z0-9+/]+=*$`));
    expect(box.currentKeyId).toBe(keyIdOf(key));
    expect(box.isCurrent(sealed)).toBe(true);
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
    expect(() => new SecretBox(randomBytes(32)).open(sealed, 'password')).toThrow(
      /sealed under a key that is not configured/,
    );
    const header = `enc:v2:${box.currentKeyId}:`;
    const raw = Buffer.from(sealed.slice(header.length), 'base64');
    raw[raw.length - 1] = (raw[raw.length - 1] ?? 0) ^ 1;
    expect(() => box.open(`${header}${raw.toString('base64')}`, 'password')).toThrow(
      /belongs elsewhere or was tampered with/,
    );
    expect(() => box.open('s3cr3t-value', 'password', 'config.password')).toThrow(
      'config.password is not a sealed value',
    );
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
    const sent = sealFieldsForTransit(
      box,
      { host: 'db', password: 'pw-123456', token: '********', port: 5432 },
      fields,
      't1',
      'connector.config',
      '********',
    );
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

describe('key rotation', () => {
  const keyA = randomBytes(32);
  const keyB = randomBytes(32);
  const onlyA = new SecretBox(keyA);
  const bWithA = new SecretBox({ current: keyB, previous: [keyA] });
  const onlyB = new SecretBox(keyB);

  it('names the sealing key by an id that is not the key, the same on every box', () => {
    expect(keyIdOf(keyA)).toMatch(/^[0-9a-f]{8}$/);
    expect(keyIdOf(keyA)).not.toBe(keyIdOf(keyB));
    expect(keyA.toString('hex')).not.toContain(keyIdOf(keyA));
    expect(onlyA.seal('x', 'f')).toContain(`:${keyIdOf(keyA)}:`);
    expect(bWithA.seal('x', 'f')).toContain(`:${keyIdOf(keyB)}:`);
  });

  it('opens with the key the value names: a previous key still opens what it sealed, the current one seals', () => {
    const underA = onlyA.seal('secret-a', 'f');
    expect(bWithA.open(underA, 'f')).toBe('secret-a');
    expect(bWithA.isCurrent(underA)).toBe(false);
    expect(onlyB.open(bWithA.seal('secret-b', 'f'), 'f', 'config.password')).toBe('secret-b');
    expect(() => onlyB.open(underA, 'f', 'config.password')).toThrow(
      `config.password was sealed under a key that is not configured (key id ${keyIdOf(keyA)})`,
    );
  });

  it('re-seals a value of a previous key under the current one, and leaves a current value alone', () => {
    const underA = onlyA.seal('secret-a', 'f');
    const resealed = bWithA.reseal(underA, 'f');
    expect(resealed).toBeDefined();
    expect(bWithA.isCurrent(resealed as string)).toBe(true);
    expect(bWithA.reseal(resealed as string, 'f')).toBeUndefined();
    // The previous key removed: the re-sealed value still opens.
    expect(onlyB.open(resealed as string, 'f')).toBe('secret-a');
    expect(() => bWithA.reseal(underA, 'other')).toThrow(SecretOpenError);
  });

  it('opens v1 values with the current or a previous key, with their own additional data when told', () => {
    expect(bWithA.open(legacySeal('enc:v1:', 'old-a', 'password', keyA), 'password')).toBe('old-a');
    expect(bWithA.open(legacySeal('v1:', 'old-b', 'wh_1', keyB), 'wh_1')).toBe('old-b');
    const v1 = legacySeal('enc:v1:', 'old-field-bound', 'password', keyA);
    expect(bWithA.open(v1, '["connector-secret","t1","con_1","password"]', 'x', { v1Aad: 'password' })).toBe(
      'old-field-bound',
    );
    expect(() => onlyB.open(v1, 'password')).toThrow(/wrong key or tampered value/);
    const resealed = bWithA.reseal(v1, 'bound', 'x', { v1Aad: 'password' }) as string;
    expect(onlyB.open(resealed, 'bound')).toBe('old-field-bound');
  });

  it('never opens a v2 value with the v1 fallback, nor once its header is rewritten', () => {
    const sealed = onlyA.seal('s3cr3t', 'bound');
    expect(() => onlyA.open(sealed, 'other', 'x', { v1Aad: 'bound' })).toThrow(SecretOpenError);
    const payload = sealed.slice(`enc:v2:${keyIdOf(keyA)}:`.length);
    expect(() => onlyA.open(`enc:v1:${payload}`, 'bound')).toThrow(SecretOpenError);
    expect(() => bWithA.open(`enc:v2:${keyIdOf(keyB)}:${payload}`, 'bound')).toThrow(SecretOpenError);
    expect(() => onlyA.open(`enc:v2:zzzz:${payload}`, 'bound', 'x')).toThrow('x is not a sealed value');
  });

  it('takes the same key twice as one, and refuses a previous key of the wrong length', () => {
    expect(new SecretBox({ current: keyA, previous: [keyA] }).open(onlyA.seal('x', 'f'), 'f')).toBe('x');
    expect(() => new SecretBox({ current: keyA, previous: [randomBytes(8)] })).toThrow(
      'secrets key must be 32 bytes, got 8',
    );
  });
});

describe('secretsEnv', () => {
  const schema = z.object(secretsEnv());

  it('reads the current key and optional previous keys into a key ring', () => {
    const a = randomBytes(32);
    const b = randomBytes(32);
    const parsed = schema.parse({
      SECRETS_KEY: b.toString('hex'),
      SECRETS_KEYS_PREVIOUS: ` ${a.toString('base64')} ,`,
    });
    expect(secretKeysOf(parsed)).toEqual({ current: b, previous: [a] });
    expect(schema.parse({ SECRETS_KEY: b.toString('hex') }).SECRETS_KEYS_PREVIOUS).toEqual([]);
  });

  it('names a malformed previous key by its position, never by its value', () => {
    const result = schema.safeParse({
      SECRETS_KEY: randomBytes(32).toString('hex'),
      SECRETS_KEYS_PREVIOUS: `${randomBytes(32).toString('hex')},oops-key`,
    });
    expect(result.success).toBe(false);
    const message = result.error?.issues[0]?.message ?? '';
    expect(message).toMatch(/^SECRETS_KEYS_PREVIOUS entry 2 must be 32 bytes/);
    expect(message).not.toContain('oops-key');
  });
});
