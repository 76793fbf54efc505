import { randomBytes } from 'node:crypto';
import { CONNECTOR_SECRET_FIELDS } from '@conduit/contracts';
import { connectorTypes } from './registry.js';
import {
  SECRET_MASK,
  decryptSecrets,
  encryptSecrets,
  maskSecrets,
  mergeSecrets,
  parseSecretsKey,
  secretsToResend,
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

describe('secretsToResend', () => {
  const stored = { host: 'db', database: 'app', user: 'u', password: 'enc:v1:stored' };

  it('names each masked secret when a location field changes', () => {
    expect(secretsToResend('postgres', { ...stored, host: 'elsewhere', password: SECRET_MASK }, stored)).toEqual(['password']);
    expect(secretsToResend('postgres', { ...stored, port: 6543, password: SECRET_MASK }, stored)).toEqual(['password']);
    const http = { base_url: 'https://api.example.com', auth_type: 'bearer', bearer_token: 'enc:v1:x', password: 'enc:v1:y' };
    expect(
      secretsToResend('http', { ...http, base_url: 'https://evil.example', bearer_token: SECRET_MASK, password: SECRET_MASK }, http),
    ).toEqual(['bearer_token', 'password']);
    expect(secretsToResend('s3', { bucket: 'other', secret_access_key: SECRET_MASK }, { bucket: 'b1', secret_access_key: 'enc:v1:z' })).toEqual([
      'secret_access_key',
    ]);
  });

  it('asks nothing when the place is the same (defaults count), or the secrets are sent anew', () => {
    expect(secretsToResend('postgres', { ...stored, user: 'other', password: SECRET_MASK }, stored)).toEqual([]);
    expect(secretsToResend('postgres', { ...stored, port: 5432, password: SECRET_MASK }, stored)).toEqual([]);
    expect(secretsToResend('postgres', { ...stored, host: 'elsewhere', password: 'new-one' }, stored)).toEqual([]);
    expect(secretsToResend('postgres', { host: 'elsewhere', database: 'app', user: 'u' }, { host: 'db', database: 'app', user: 'u' })).toEqual([]);
  });

  it('every type declares where it connects and its secrets from its own schema, secrets as in @conduit/contracts', () => {
    const types = connectorTypes();
    expect(types.map((t) => t.type)).toEqual(Object.keys(CONNECTOR_SECRET_FIELDS).sort());
    for (const info of types) {
      const properties = info.config_schema['properties'] as Record<string, Record<string, unknown>>;
      const marked = Object.keys(properties).filter((name) => properties[name]?.['x-secret'] === true);
      expect({ type: info.type, secrets: [...info.secret_fields].sort() }).toEqual({ type: info.type, secrets: marked.sort() });
      expect(info.location_fields.length).toBeGreaterThan(0);
      for (const field of info.location_fields) expect({ type: info.type, field, known: field in properties }).toEqual({ type: info.type, field, known: true });
    }
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

  it('treats its input as plaintext: a pasted ciphertext is sealed again and opens as itself, not as its secret', () => {
    const victim = encryptSecrets('postgres', config, key);
    const pasted = encryptSecrets('postgres', { ...config, password: victim.password }, key);
    expect(pasted.password).not.toBe(victim.password);
    expect(decryptSecrets('postgres', pasted, key).password).toBe(victim.password);
    expect(encryptSecrets('postgres', { host: 'db' }, key)).toEqual({ host: 'db' });
  });

  it('detects tampering and a wrong key without leaking the value', () => {
    const enc = encryptSecrets('postgres', config, key).password as string;
    const raw = Buffer.from(enc.slice('enc:v1:'.length), 'base64');
    raw[raw.length - 1] = (raw[raw.length - 1] ?? 0) ^ 1;
    const tampered = { ...config, password: 'enc:v1:' + raw.toString('base64') };
    expect(() => decryptSecrets('postgres', tampered, key)).toThrow(/could not be decrypted/);
    expect(() => decryptSecrets('postgres', { password: enc }, randomBytes(32))).toThrow(/wrong key or tampered/);
    expect(() => decryptSecrets('postgres', { password: 'enc:v1:AAAA' }, key)).toThrow(/is not a sealed value/);
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
