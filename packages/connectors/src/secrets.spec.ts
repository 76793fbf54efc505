import { createCipheriv, randomBytes } from 'node:crypto';
import { SecretBox, SecretOpenError } from '@conduit/secrets';
import { CONNECTOR_SECRET_FIELDS } from '@conduit/contracts';
import { connectorTypes } from './registry.js';
import {
  SECRET_MASK,
  decryptReadableSecrets,
  decryptSecrets,
  encryptSecrets,
  maskSecrets,
  mergeSecrets,
  parseSecretsKey,
  resealSecrets,
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
    expect(secretsToResend('postgres', { ...stored, host: 'elsewhere', password: SECRET_MASK }, stored)).toEqual([
      'password',
    ]);
    expect(secretsToResend('postgres', { ...stored, port: 6543, password: SECRET_MASK }, stored)).toEqual(['password']);
    const http = {
      base_url: 'https://api.example.com',
      auth_type: 'bearer',
      bearer_token: 'enc:v1:x',
      password: 'enc:v1:y',
    };
    expect(
      secretsToResend(
        'http',
        { ...http, base_url: 'https://evil.example', bearer_token: SECRET_MASK, password: SECRET_MASK },
        http,
      ),
    ).toEqual(['bearer_token', 'password']);
    expect(
      secretsToResend(
        's3',
        { bucket: 'other', secret_access_key: SECRET_MASK },
        { bucket: 'b1', secret_access_key: 'enc:v1:z' },
      ),
    ).toEqual(['secret_access_key']);
  });

  it('names each masked secret when the TLS setting changes: a stored secret never goes out less protected', () => {
    expect(
      secretsToResend(
        'postgres',
        { ...stored, ssl: 'disable', password: SECRET_MASK },
        { ...stored, ssl: 'verify-full' },
      ),
    ).toEqual(['password']);
    const mysql = { host: 'db', user: 'u', password: 'enc:v1:m', ssl: 'require' };
    expect(secretsToResend('mysql', { ...mysql, ssl: 'disable', password: SECRET_MASK }, mysql)).toEqual(['password']);
    for (const type of ['redis', 'amqp', 'mqtt', 'nats']) {
      const held = { host: 'broker', password: 'enc:v1:b', tls: true };
      expect(secretsToResend(type, { ...held, tls: false, password: SECRET_MASK }, held)).toEqual(['password']);
    }
    // Unchanged, the default spelled out or left out alike: nothing to send again.
    expect(secretsToResend('postgres', { ...stored, ssl: 'disable', password: SECRET_MASK }, stored)).toEqual([]);
  });

  it('asks nothing when the place is the same (defaults count), or the secrets are sent anew', () => {
    expect(secretsToResend('postgres', { ...stored, user: 'other', password: SECRET_MASK }, stored)).toEqual([]);
    expect(secretsToResend('postgres', { ...stored, port: 5432, password: SECRET_MASK }, stored)).toEqual([]);
    expect(secretsToResend('postgres', { ...stored, host: 'elsewhere', password: 'new-one' }, stored)).toEqual([]);
    expect(
      secretsToResend(
        'postgres',
        { host: 'elsewhere', database: 'app', user: 'u' },
        { host: 'db', database: 'app', user: 'u' },
      ),
    ).toEqual([]);
  });

  it('every type declares where it connects and its secrets from its own schema, secrets as in @conduit/contracts', () => {
    const types = connectorTypes();
    expect(types.map((t) => t.type)).toEqual(Object.keys(CONNECTOR_SECRET_FIELDS).sort());
    for (const info of types) {
      const properties = info.config_schema['properties'] as Record<string, Record<string, unknown>>;
      const marked = Object.keys(properties).filter((name) => properties[name]?.['x-secret'] === true);
      expect({ type: info.type, secrets: [...info.secret_fields].sort() }).toEqual({
        type: info.type,
        secrets: marked.sort(),
      });
      expect(info.location_fields.length).toBeGreaterThan(0);
      for (const field of info.location_fields)
        expect({ type: info.type, field, known: field in properties }).toEqual({ type: info.type, field, known: true });
    }
  });
});

describe('encryptSecrets / decryptSecrets', () => {
  const key = randomBytes(32);
  const box = new SecretBox(key);
  const owner = { tenantId: 't1', connectorId: 'con_1' };

  it('round-trips, with a fresh IV per value, and leaves other fields in clear', () => {
    const a = encryptSecrets('postgres', config, box, owner);
    const b = encryptSecrets('postgres', config, box, owner);
    expect(a.password).toMatch(/^enc:v2:[0-9a-f]{8}:[A-Za-z0-9+/]+=*$/);
    expect(a.password).not.toBe(b.password);
    expect(a.host).toBe('db');
    expect(JSON.stringify(a)).not.toContain('$$');
    expect(decryptSecrets('postgres', a, box, owner)).toEqual(config);
  });

  it('treats its input as plaintext: a pasted ciphertext is sealed again and opens as itself, not as its secret', () => {
    const victim = encryptSecrets('postgres', config, box, owner);
    const pasted = encryptSecrets('postgres', { ...config, password: victim.password }, box, owner);
    expect(pasted.password).not.toBe(victim.password);
    expect(decryptSecrets('postgres', pasted, box, owner).password).toBe(victim.password);
    expect(encryptSecrets('postgres', { host: 'db' }, box, owner)).toEqual({ host: 'db' });
  });

  it('binds a secret to its tenant, connector and field: copied anywhere else it does not open', () => {
    const sealed = encryptSecrets('postgres', config, box, owner);
    expect(() => decryptSecrets('postgres', sealed, box, { tenantId: 't1', connectorId: 'con_2' })).toThrow(
      SecretOpenError,
    );
    expect(() => decryptSecrets('postgres', sealed, box, { tenantId: 't2', connectorId: 'con_1' })).toThrow(
      SecretOpenError,
    );
    expect(() => decryptSecrets('http', { bearer_token: sealed.password }, box, owner)).toThrow(
      /secret field "bearer_token" could not be decrypted/,
    );
    const readable = decryptReadableSecrets('postgres', sealed, box, { tenantId: 't1', connectorId: 'con_2' });
    expect(readable).toEqual({ config: { host: 'db', database: 'app', user: 'u' }, unreadable: ['password'] });
  });

  it('opens a v1 value bound to its field only, and re-seals it bound to its connector', () => {
    const v1 = legacyV1(key, 'old-pw', 'password');
    expect(decryptSecrets('postgres', { password: v1 }, box, owner).password).toBe('old-pw');
    const {
      config: resealed,
      resealed: fields,
      unreadable,
    } = resealSecrets('postgres', { host: 'db', password: v1 }, box, owner);
    expect({ fields, unreadable }).toEqual({ fields: ['password'], unreadable: [] });
    expect(box.isCurrent(resealed.password as string)).toBe(true);
    expect(decryptSecrets('postgres', resealed, box, owner).password).toBe('old-pw');
    expect(() => decryptSecrets('postgres', resealed, box, { tenantId: 't1', connectorId: 'con_2' })).toThrow(
      SecretOpenError,
    );
    expect(resealSecrets('postgres', resealed, box, owner)).toEqual({ config: resealed, resealed: [], unreadable: [] });
    expect(resealSecrets('postgres', { password: 'enc:v1:AAAA' }, box, owner).unreadable).toEqual(['password']);
  });

  it('detects tampering and a wrong key without leaking the value', () => {
    const enc = encryptSecrets('postgres', config, box, owner).password as string;
    const header = `enc:v2:${box.currentKeyId}:`;
    const raw = Buffer.from(enc.slice(header.length), 'base64');
    raw[raw.length - 1] = (raw[raw.length - 1] ?? 0) ^ 1;
    const tampered = { ...config, password: header + raw.toString('base64') };
    expect(() => decryptSecrets('postgres', tampered, box, owner)).toThrow(/could not be decrypted/);
    expect(() => decryptSecrets('postgres', { password: enc }, new SecretBox(randomBytes(32)), owner)).toThrow(
      /not configured/,
    );
    expect(() => decryptSecrets('postgres', { password: 'enc:v1:AAAA' }, box, owner)).toThrow(/is not a sealed value/);
  });
});

/** A value as the catalog stored it before key ids: `enc:v1:`, the field name as additional data. */
function legacyV1(key: Buffer, plain: string, field: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(field, 'utf8'));
  const ct = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  return 'enc:v1:' + Buffer.concat([iv, cipher.getAuthTag(), ct]).toString('base64');
}

describe('parseSecretsKey', () => {
  const key = randomBytes(32);

  it('reads 64 hex characters and base64 of 32 bytes', () => {
    expect(parseSecretsKey(key.toString('hex'))).toEqual(key);
    expect(parseSecretsKey(key.toString('hex').toUpperCase())).toEqual(key);
    expect(parseSecretsKey(key.toString('base64'))).toEqual(key);
    expect(parseSecretsKey(` ${key.toString('base64url')}\n`)).toEqual(key);
  });

  it('throws a clear error that does not echo the value', () => {
    for (const bad of [
      '',
      'short',
      randomBytes(16).toString('hex'),
      randomBytes(31).toString('base64'),
      'z'.repeat(64),
    ]) {
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
