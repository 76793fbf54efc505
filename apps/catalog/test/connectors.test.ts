import { describe, expect, it } from '@jest/globals';
import { freePort, silentListener, waitFor } from '@conduit/testing';
import { TEST_CONNECTIONS_PER_TENANT } from '../src/connectors/connectors.service.js';
import { SECRET_MASK } from '@conduit/connectors';
import { ConnectorSecrets } from '../src/connectors/connector-secrets.js';
import { useFreshCatalog, inTransit, localPostgresConfig, newTenant, rejection } from './support/catalog-db.js';

const cat = useFreshCatalog();

async function rawConfig(id: string): Promise<Record<string, unknown>> {
  const rows: { config: Record<string, unknown> }[] = await cat.ds.query(
    `SELECT config FROM "${cat.schema}".connectors WHERE id = $1`,
    [id],
  );
  const [row] = rows;
  if (!row) throw new Error(`connector ${id} is not stored`);
  return row.config;
}

describe('connectors', () => {
  it('encrypts secrets at rest and answers them masked everywhere', async () => {
    const t = newTenant();
    const password = 'correct horse battery staple';
    const created = await cat.connectors.create(t, {
      name: 'db',
      type: 'postgres',
      config: inTransit(cat.key, t, { host: 'db', database: 'd', user: 'u', password }),
    });
    expect(created.data).toMatchObject({ type: 'postgres', status: 'untested', last_test: null, project_id: null });
    // The type's defaults filled in: the settings the connector really uses.
    expect(created.data.config).toEqual({
      host: 'db',
      database: 'd',
      user: 'u',
      password: SECRET_MASK,
      port: 5432,
      ssl: 'disable',
      schema: 'public',
    });

    const raw = await rawConfig(created.data.id);
    expect(JSON.stringify(raw)).not.toContain(password);
    expect(raw['password']).toMatch(/^enc:v2:[0-9a-f]{8}:/);
    expect(
      new ConnectorSecrets(cat.key).open('postgres', raw, { tenantId: t, connectorId: created.data.id })['password'],
    ).toBe(password);

    expect((await cat.connectors.get(t, created.data.id)).data.config['password']).toBe(SECRET_MASK);
    const listed = await cat.connectors.list(t, { limit: 50 });
    expect(listed.data.map((c) => c.config['password'])).toEqual([SECRET_MASK]);
  });

  it('keeps the stored secret when an update sends the mask, and replaces it when a new one is sent', async () => {
    const t = newTenant();
    const { data, etag } = await cat.connectors.create(t, {
      name: 'db',
      type: 'postgres',
      config: inTransit(cat.key, t, { host: 'db', database: 'd', user: 'u', password: 'first' }),
    });
    const kept = await cat.connectors.update(
      t,
      data.id,
      { name: 'db2', type: 'postgres', config: { ...data.config, schema: 'other' } },
      etag,
    );
    expect(kept.data).toMatchObject({ name: 'db2', config: { schema: 'other', password: SECRET_MASK } });
    expect(
      new ConnectorSecrets(cat.key).open('postgres', await rawConfig(data.id), { tenantId: t, connectorId: data.id })[
        'password'
      ],
    ).toBe('first');

    await cat.connectors.update(t, data.id, {
      name: 'db2',
      config: inTransit(cat.key, t, { ...kept.data.config, password: 'second' }),
    });
    const raw = await rawConfig(data.id);
    expect(JSON.stringify(raw)).not.toContain('second');
    expect(new ConnectorSecrets(cat.key).open('postgres', raw, { tenantId: t, connectorId: data.id })['password']).toBe(
      'second',
    );

    expect(
      (await rejection(cat.connectors.update(t, data.id, { name: 'db2', config: kept.data.config }, etag))).code,
    ).toBe('precondition_failed');
  });

  it('refuses an unknown type, an invalid config (every problem) and a change of type', async () => {
    const t = newTenant();
    const unknown = await rejection(cat.connectors.create(t, { name: 'x', type: 'oracle', config: {} }));
    expect(unknown.code).toBe('validation_failed');
    expect(unknown.errors).toEqual([expect.objectContaining({ path: 'type', code: 'unknown_connector_type' })]);

    const invalid = await rejection(
      cat.connectors.create(t, { name: 'x', type: 'postgres', config: { host: 'h', port: 'five', extra: 1 } }),
    );
    expect(invalid.code).toBe('validation_failed');
    const paths = invalid.errors?.map((e) => e.path) ?? [];
    expect(paths).toEqual(expect.arrayContaining(['config.port', 'config.extra']));
    expect(paths.some((p) => p.includes('database'))).toBe(true);
    expect(paths.some((p) => p.includes('user'))).toBe(true);

    const { data } = await cat.connectors.create(t, {
      name: 'db',
      type: 'postgres',
      config: { host: 'h', database: 'd', user: 'u' },
    });
    const immutable = await rejection(
      cat.connectors.update(t, data.id, { name: 'db', type: 'mysql', config: data.config }),
    );
    expect(immutable.errors).toEqual([expect.objectContaining({ path: 'type', code: 'immutable' })]);
    expect(
      (await rejection(cat.connectors.create(t, { name: 'db', type: 'postgres', config: data.config }))).code,
    ).toBe('name_taken');
  });

  it("filters by project and type, refusing an unknown type filter, and hides other tenants' connectors", async () => {
    const a = newTenant();
    const b = newTenant();
    const project = await cat.projects.create(a, { name: 'p' });
    const inProject = await cat.connectors.create(a, {
      name: 'in',
      type: 'postgres',
      config: { host: 'h', database: 'd', user: 'u' },
      project_id: project.data.id,
    });
    const loose = await cat.connectors.create(a, {
      name: 'loose',
      type: 'postgres',
      config: { host: 'h', database: 'd', user: 'u' },
    });
    expect((await cat.connectors.list(a, { limit: 50, project_id: project.data.id })).data.map((c) => c.id)).toEqual([
      inProject.data.id,
    ]);
    expect((await cat.connectors.list(a, { limit: 50, type: 'postgres' })).data.map((c) => c.id)).toEqual([
      loose.data.id,
      inProject.data.id,
    ]);
    expect((await rejection(cat.connectors.list(a, { limit: 50, type: 'nosuch' }))).code).toBe('invalid_parameter');

    expect((await cat.connectors.list(b, { limit: 50 })).data).toEqual([]);
    for (const op of [
      cat.connectors.get(b, loose.data.id),
      cat.connectors.update(b, loose.data.id, { name: 'x', config: { host: 'h', database: 'd', user: 'u' } }),
      cat.connectors.delete(b, loose.data.id),
      cat.connectors.test(b, loose.data.id),
    ]) {
      expect((await rejection(op)).code).toBe('not_found');
    }
    const wrongProject = await rejection(
      cat.connectors.create(b, {
        name: 'x',
        type: 'postgres',
        config: { host: 'h', database: 'd', user: 'u' },
        project_id: project.data.id,
      }),
    );
    expect(wrongProject.errors).toEqual([expect.objectContaining({ path: 'project_id', code: 'unknown_project' })]);
  });

  it('tests a connection to the local PostgreSQL and stores status ok', async () => {
    const t = newTenant();
    const { data } = await cat.connectors.create(t, {
      name: 'local',
      type: 'postgres',
      config: inTransit(cat.key, t, localPostgresConfig()),
    });
    const result = await cat.connectors.test(t, data.id);
    expect(result).toMatchObject({ ok: true, error_class: null });
    expect(result.checks.length).toBeGreaterThan(0);
    const stored = (await cat.connectors.get(t, data.id)).data;
    expect(stored.status).toBe('ok');
    expect(stored.last_test).toEqual(result);
  });

  it('reports a closed port as a transient failure and stores status failed', async () => {
    const t = newTenant();
    const password = 'never-in-a-message';
    const { data } = await cat.connectors.create(t, {
      name: 'closed',
      type: 'postgres',
      config: inTransit(cat.key, t, { ...localPostgresConfig(password), host: '127.0.0.1', port: await freePort() }),
    });
    const started = Date.now();
    const result = await cat.connectors.test(t, data.id);
    expect(Date.now() - started).toBeLessThan(11_000);
    expect(result).toMatchObject({ ok: false, error_class: 'transient_error' });
    expect(JSON.stringify(result)).not.toContain(password);
    const stored = (await cat.connectors.get(t, data.id)).data;
    expect(stored.status).toBe('failed');
    expect(stored.last_test).toEqual(result);

    // A changed config makes the last test stale.
    const updated = await cat.connectors.update(t, data.id, {
      name: 'closed',
      config: inTransit(cat.key, t, { ...stored.config, port: 5432, password }),
    });
    expect(updated.data).toMatchObject({ status: 'untested', last_test: null });
  });

  it('keeps the last test when an update only sends or leaves out a default (the same settings)', async () => {
    const t = newTenant();
    const { data } = await cat.connectors.create(t, {
      name: 'closed',
      type: 'postgres',
      config: inTransit(cat.key, t, {
        ...localPostgresConfig('pw'),
        host: '127.0.0.1',
        port: await freePort(),
        ssl: 'disable',
        schema: 'public',
      }),
    });
    await cat.connectors.test(t, data.id);
    const tested = (await cat.connectors.get(t, data.id)).data;
    expect(tested.status).toBe('failed');
    const { ssl, schema, ...withoutDefaults } = tested.config;
    expect({ ssl, schema }).toEqual({ ssl: 'disable', schema: 'public' });
    const updated = await cat.connectors.update(t, data.id, { name: 'closed', config: withoutDefaults });
    expect(updated.data).toMatchObject({ status: 'failed', last_test: tested.last_test, config: tested.config });
  });

  it('lists the connector types', () => {
    const types = cat.connectors.types().data;
    const postgres = types.find((x) => x.type === 'postgres');
    expect(postgres).toMatchObject({ category: 'database', secret_fields: ['password'] });
    expect(postgres?.roles).toEqual(expect.arrayContaining(['source', 'sink', 'sql']));
  });
});

describe('Test Connection, one tenant among others', () => {
  it("answers a tenant's tests beyond its slots with rate_limited, leaving other tenants' tests alone", async () => {
    const hung = await silentListener();
    const before = process.env['CONNECTOR_ALLOW_PRIVATE_NETWORKS'];
    process.env['CONNECTOR_ALLOW_PRIVATE_NETWORKS'] = 'true';
    try {
      const [a, b] = [newTenant(), newTenant()];
      let n = 0;
      const make = async (tenant: string) =>
        (
          await cat.connectors.create(tenant, {
            name: `hung-${n++}`,
            type: 'http',
            config: { base_url: `http://127.0.0.1:${hung.port}/` },
          })
        ).data.id;
      const held = await Promise.all(Array.from({ length: TEST_CONNECTIONS_PER_TENANT }, () => make(a)));
      const running = held.map((id) => cat.connectors.test(a, id));
      await waitFor(() => hung.openConnections() >= TEST_CONNECTIONS_PER_TENANT, {
        what: "tenant a's tests to be waiting on the hung server",
      });
      const refused = await rejection(cat.connectors.test(a, await make(a)));
      expect(refused).toMatchObject({ code: 'rate_limited', message: expect.stringContaining('connection tests') });

      const other = cat.connectors.test(b, await make(b));
      await waitFor(() => hung.openConnections() > TEST_CONNECTIONS_PER_TENANT, {
        what: "tenant b's test to reach the server",
      });
      await hung.close();
      for (const result of await Promise.all([...running, other])) expect(result.ok).toBe(false);
      // The slots are back once the tests ended.
      expect((await cat.connectors.test(a, held[0]!)).ok).toBe(false);
    } finally {
      if (before === undefined) delete process.env['CONNECTOR_ALLOW_PRIVATE_NETWORKS'];
      else process.env['CONNECTOR_ALLOW_PRIVATE_NETWORKS'] = before;
      await hung.close();
    }
  });
});
