/**
 * Issue 14 in the catalog: secrets arrive only sealed (finding 2), a connector that moves must be sent its secrets
 * again (finding 4), URLs carry no credentials (finding 9), and the executor is answered sealed configs.
 */
import { describe, expect, it } from '@jest/globals';
import { SECRET_MASK } from '@conduit/connectors';
import { ConnectorSecrets } from '../src/connectors/connector-secrets.js';
import { useFreshCatalog, inTransit, newTenant, rejection } from './support/catalog-db.js';

const cat = useFreshCatalog();

async function rawConfig(id: string): Promise<Record<string, unknown>> {
  const rows: { config: Record<string, unknown> }[] = await cat.ds.query(
    `SELECT config FROM "${cat.schema}".connectors WHERE id = $1`,
    [id],
  );
  return rows[0]?.config ?? {};
}

const pg = { host: 'db.example.com', database: 'd', user: 'u' };
const api = { base_url: 'https://api.example.com/v1', auth_type: 'bearer' };

describe('secrets in transit', () => {
  it('refuses a secret that arrived in clear, and one sealed for another tenant', async () => {
    const t = newTenant();
    const clear = await rejection(
      cat.connectors.create(t, { name: 'db', type: 'postgres', config: { ...pg, password: 'in-clear-123' } }),
    );
    expect(clear.message).toBe('connector.config.password arrived in clear: secrets must cross services sealed');
    const foreign = await rejection(
      cat.connectors.create(t, {
        name: 'db',
        type: 'postgres',
        config: inTransit(cat.key, newTenant(), { ...pg, password: 'x' }),
      }),
    );
    expect(foreign.message).toMatch(/connector.config.password could not be decrypted/);
    expect((await cat.connectors.list(t, { limit: 10 })).data).toEqual([]);
  });

  it('does not open a stored ciphertext pasted in as a password: it is stored as that text', async () => {
    const t = newTenant();
    const victim = await cat.connectors.create(t, {
      name: 'victim',
      type: 'postgres',
      config: inTransit(cat.key, t, { ...pg, password: 'victim-secret' }),
    });
    const stolen = (await rawConfig(victim.data.id))['password'] as string;
    const thief = await cat.connectors.create(t, {
      name: 'thief',
      type: 'postgres',
      config: inTransit(cat.key, t, { ...pg, password: stolen }),
    });
    expect(
      new ConnectorSecrets(cat.key).open('postgres', await rawConfig(thief.data.id), {
        tenantId: t,
        connectorId: thief.data.id,
      })['password'],
    ).toBe(stolen);
  });

  it('answers the executor the stored, sealed config: no secret in clear', async () => {
    const t = newTenant();
    const { data } = await cat.connectors.create(t, {
      name: 'db',
      type: 'postgres',
      config: inTransit(cat.key, t, { ...pg, password: 'resolve-me-not' }),
    });
    const [resolved] = await cat.connectors.resolve(t, [data.id]);
    expect(JSON.stringify(resolved)).not.toContain('resolve-me-not');
    expect(resolved?.config).toEqual(await rawConfig(data.id));
    expect(
      new ConnectorSecrets(cat.key).open('postgres', resolved?.config ?? {}, { tenantId: t, connectorId: data.id })[
        'password'
      ],
    ).toBe('resolve-me-not');
  });
});

describe('a connector that moves must be sent its secrets again', () => {
  it('422 names each masked secret when a location field changes, and changes nothing', async () => {
    const t = newTenant();
    const { data } = await cat.connectors.create(t, {
      name: 'api',
      type: 'http',
      config: inTransit(cat.key, t, { ...api, bearer_token: 'tok-1', password: 'pw-1' }),
    });
    const before = await rawConfig(data.id);
    const moved = await rejection(
      cat.connectors.update(t, data.id, {
        name: 'api',
        config: { ...data.config, base_url: 'https://evil.example.net/' },
      }),
    );
    expect(moved.code).toBe('validation_failed');
    expect(moved.errors).toEqual([
      expect.objectContaining({ path: 'config.bearer_token', code: 'secret_required' }),
      expect.objectContaining({ path: 'config.password', code: 'secret_required' }),
    ]);
    expect(await rawConfig(data.id)).toEqual(before);

    const portMove = await cat.connectors.create(t, {
      name: 'db',
      type: 'postgres',
      config: inTransit(cat.key, t, { ...pg, password: 'pw' }),
    });
    const port = await rejection(
      cat.connectors.update(t, portMove.data.id, { name: 'db', config: { ...portMove.data.config, port: 6432 } }),
    );
    expect(port.errors).toEqual([
      expect.objectContaining({
        path: 'config.password',
        code: 'secret_required',
        message: expect.stringContaining('port changed'),
      }),
    ]);
  });

  it('accepts the move with the secrets sent again, and a masked update that stays in place', async () => {
    const t = newTenant();
    const { data } = await cat.connectors.create(t, {
      name: 'api',
      type: 'http',
      config: inTransit(cat.key, t, { ...api, bearer_token: 'tok-1' }),
    });
    const stay = await cat.connectors.update(t, data.id, { name: 'api', config: { ...data.config, timeout_ms: 5000 } });
    expect(stay.data.config).toMatchObject({ bearer_token: SECRET_MASK, timeout_ms: 5000 });
    const config = inTransit(cat.key, t, {
      ...data.config,
      base_url: 'https://new.example.com/',
      bearer_token: 'tok-2',
    });
    await cat.connectors.update(t, data.id, { name: 'api', config });
    expect(
      new ConnectorSecrets(cat.key).open('http', await rawConfig(data.id), { tenantId: t, connectorId: data.id })[
        'bearer_token'
      ],
    ).toBe('tok-2');
  });
});

describe('credentials in URLs', () => {
  it.each([
    ['http', { base_url: 'https://user:pass@api.example.com/' }, 'config.base_url'],
    ['http', { base_url: 'https://api.example.com/?api_key=abc123' }, 'config.base_url'],
    ['openai', { base_url: 'https://llm.example.com/v1?token=abc', model: 'm' }, 'config.base_url'],
    [
      's3',
      { endpoint: 'https://k:s@s3.example.com', bucket: 'bkt', access_key_id: 'a', secret_access_key: 'b' },
      'config.endpoint',
    ],
  ])('refuses a %s config with %j, pointing to the secret settings', async (type, config, path) => {
    const t = newTenant();
    const refused = await rejection(
      cat.connectors.create(t, { name: 'c', type, config: inTransit(cat.key, t, config) }),
    );
    expect(refused.errors).toEqual([
      expect.objectContaining({
        path,
        code: 'credentials_in_url',
        message: expect.stringMatching(/must not carry credentials.*put the credential in/),
      }),
    ]);
    expect(JSON.stringify(refused)).not.toMatch(/abc123|pass@|k:s@/);
  });

  it('refuses a plain header that carries a credential, pointing to the auth settings', async () => {
    const t = newTenant();
    const config = {
      base_url: 'https://api.example.com/',
      headers: { Accept: 'application/json', 'X-API-Key': 'hdr-secret-1', Authorization: 'Bearer hdr-secret-2' },
    };
    const refused = await rejection(cat.connectors.create(t, { name: 'api', type: 'http', config }));
    expect(refused.errors).toEqual([
      expect.objectContaining({
        path: 'config.headers.X-API-Key',
        code: 'credentials_in_header',
        message: expect.stringContaining('auth_header_value'),
      }),
      expect.objectContaining({ path: 'config.headers.Authorization', code: 'credentials_in_header' }),
    ]);
    expect(JSON.stringify(refused)).not.toContain('hdr-secret');
    await cat.connectors.create(t, {
      name: 'api',
      type: 'http',
      config: { base_url: 'https://api.example.com/', headers: { Accept: 'application/json' } },
    });
  });

  it('refuses credentials added to a URL by an update', async () => {
    const t = newTenant();
    const { data } = await cat.connectors.create(t, {
      name: 'api',
      type: 'http',
      config: { base_url: 'https://api.example.com/' },
    });
    const refused = await rejection(
      cat.connectors.update(t, data.id, {
        name: 'api',
        config: { base_url: 'https://api.example.com/?access_token=zzz' },
      }),
    );
    expect(refused.errors).toEqual([expect.objectContaining({ path: 'config.base_url', code: 'credentials_in_url' })]);
  });
});
