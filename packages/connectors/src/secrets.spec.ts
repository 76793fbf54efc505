import { randomBytes } from 'node:crypto';
import {
  SECRET_MASK,
  decryptSecrets,
  encryptSecrets,
  maskSecrets,
  mergeSecrets,
  parseSecretsKey,
} from './secrets.js';

const config = { host: 'db', database: 'app', user: 'u', password: 'pä$$"word' };

describe('maskSecrets', () => {
  it('masks present secrets only and leaves the input alone', () => {
    expect(maskSecrets('postgres', config)).toEqual({ ...config, password: SECRET_MASK });
    expect(config.password).toBe('pä$$"word');
    expect(maskSecrets('postgres', { host: 'db' })).toEqual({ host: 'db' });
  });

  it('rejects an unknown type', () => {
    expect(() => maskSecrets('nope', config)).toThrow(/unknown connector type "nope"/);
  });
});

describe('mergeSecrets', () => {
  it('keeps the stored secret when the mask is sent', () => {
    const merged = mergeSecrets('postgres', { ...config, host: 'db2', password: SECRET_MASK }, config);
    expect(merged).toEqual({ ...config, host: 'db2' });
  });

  it('takes a new secret and drops a masked one with nothing stored', () => {
    expect(mergeSecrets('postgres', { ...config, password: 'new' }, config).password).toBe('new');
    expect(mergeSecrets('postgres', { host: 'db', password: SECRET_MASK }, { host: 'db' })).toEqual({ host: 'db' });
  });
});

describe('encryptSecrets / decryptSecrets', () => {
  const key = randomBytes(32);

  it('round-trips, with a fresh IV per value, and leaves other fields in clear', () => {
    const a = encryptSecrets('postgres', config, key);
    const b = encryptSecrets('postgres', config, key);
    expect(a.password).toMatch(/^enc:v1:[A-Za-z0-9+/]+=*$/);
    expect(a.password).not.toBe(b.password);
    expect(a.host).toBe('db');
    expect(JSON.stringify(a)).not.toContain('$$');
    expect(decryptSecrets('postgres', a, key)).toEqual(config);
  });

  it('does not encrypt twice and passes absent secrets through', () => {
    const once = encryptSecrets('postgres', config, key);
    expect(encryptSecrets('postgres', once, key)).toEqual(once);
    expect(encryptSecrets('postgres', { host: 'db' }, key)).toEqual({ host: 'db' });
  });

  it('detects tampering and a wrong key without leaking the value', () => {
    const enc = encryptSecrets('postgres', config, key).password as string;
    const raw = Buffer.from(enc.slice('enc:v1:'.length), 'base64');
    raw[raw.length - 1] = (raw[raw.length - 1] ?? 0) ^ 1;
    const tampered = { ...config, password: 'enc:v1:' + raw.toString('base64') };
    expect(() => decryptSecrets('postgres', tampered, key)).toThrow(/could not be decrypted/);
    expect(() => decryptSecrets('postgres', { password: enc }, randomBytes(32))).toThrow(/wrong key or tampered/);
    expect(() => decryptSecrets('postgres', { password: 'enc:v1:AAAA' }, key)).toThrow(/not a valid encrypted value/);
  });

  it('refuses a key of the wrong length', () => {
    expect(() => encryptSecrets('postgres', config, randomBytes(16))).toThrow(/32 bytes/);
  });
});

describe('parseSecretsKey', () => {
  const key = randomBytes(32);

  it('reads 64 hex characters and base64 of 32 bytes', () => {
    expect(parseSecretsKey(key.toString('hex'))).toEqual(key);
    expect(parseSecretsKey(key.toString('hex').toUpperCase())).toEqual(key);
    expect(parseSecretsKey(key.toString('base64'))).toEqual(key);
    expect(parseSecretsKey(` ${key.toString('base64url')}\n`)).toEqual(key);
  });

  it('throws a clear error that does not echo the value', () => {
    for (const bad of ['', 'short', randomBytes(16).toString('hex'), randomBytes(31).toString('base64'), 'z'.repeat(64)]) {
      let message = '';
      try {
        parseSecretsKey(bad);
      } catch (err) {
        message = (err as Error).message;
      }
      expect(message).toMatch(/^SECRETS_KEY must be 32 bytes written as 64 hex characters or as base64/);
      if (bad.length > 0) expect(message).not.toContain(bad);
    }
  });
});
