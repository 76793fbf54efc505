import { describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { SECRET_MASK } from '@conduit/connectors';
import { ConnectorSecrets } from './connector-secrets.js';

const plain = { host: 'db', database: 'd', user: 'u', password: 'hunter2' };
const owner = { tenantId: 't1', connectorId: 'con_1' };

describe('ConnectorSecrets', () => {
  const secrets = new ConnectorSecrets(randomBytes(32));

  it('seals the secret fields only, and opens them again', () => {
    const sealed = secrets.seal('postgres', plain, owner);
    expect(sealed).toMatchObject({ host: 'db', database: 'd', user: 'u' });
    expect(sealed['password']).toMatch(new RegExp(`^enc:v2:${secrets.currentKeyId}:`));
    expect(JSON.stringify(sealed)).not.toContain('hunter2');
    expect(secrets.open('postgres', sealed, owner)).toEqual(plain);
    expect(() => secrets.open('postgres', sealed, { ...owner, connectorId: 'con_2' })).toThrow(
      /could not be decrypted/,
    );
  });

  it('masks a stored secret and leaves an absent one absent', () => {
    expect(secrets.mask('postgres', secrets.seal('postgres', plain, owner))).toEqual({
      ...plain,
      password: SECRET_MASK,
    });
    const { password: _omitted, ...noPassword } = plain;
    expect(secrets.mask('postgres', noPassword)).toEqual(noPassword);
  });

  it('merges an update: the mask keeps the stored secret, a new value replaces it', () => {
    const stored = secrets.open('postgres', secrets.seal('postgres', plain, owner), owner);
    expect(secrets.merge('postgres', { ...plain, password: SECRET_MASK, port: 5433 }, stored)).toEqual({
      ...plain,
      port: 5433,
    });
    expect(secrets.merge('postgres', { ...plain, password: 'new' }, stored)['password']).toBe('new');
  });

  it('cannot open a config sealed under another key', () => {
    const other = new ConnectorSecrets(randomBytes(32));
    expect(() => other.open('postgres', secrets.seal('postgres', plain, owner), owner)).toThrow(/not configured/);
  });
});
