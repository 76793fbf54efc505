import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { startStack, type Stack } from '@conduit/testing';
import { call, expectProblem, type ApiResponse } from './support/client.js';
import { RFC3339_MS, closedPort, localPostgresConfig, uniqueName } from './support/helpers.js';
import type {
  ConnectionTestResult,
  Connector,
  ConnectorTypeDescription,
  Page,
  Project,
  ProblemDocument,
} from '@conduit/contracts';

// Connectors and Test Connection through the gateway, against api.md (Resources > Connector).
let stack: Stack;

beforeAll(async () => {
  stack = await startStack({ CONNECTOR_ALLOW_PRIVATE_NETWORKS: 'true' });
});

afterAll(async () => {
  await stack?.stop();
});

const CONNECTOR_FIELDS = [
  'config',
  'created_at',
  'id',
  'last_test',
  'name',
  'project_id',
  'status',
  'type',
  'updated_at',
];
const TEST_FIELDS = ['checks', 'details', 'error_class', 'latency_ms', 'message', 'ok', 'tested_at'];

async function createConnector(config: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  const res = await call<Connector>(stack, 'POST', '/v2/connectors', {
    body: { name: uniqueName('pg'), type: 'postgres', config, ...extra },
  });
  expect(res.status).toBe(201);
  return res;
}

/** Test Connection, asserting the documented shape and the 10 s bound. */
async function testConnection(id: string) {
  const started = Date.now();
  const res = await call<ConnectionTestResult>(stack, 'POST', `/v2/connectors/${id}/test`);
  expect(Date.now() - started).toBeLessThan(10_000 + 1_000);
  expect(res.status).toBe(200);
  expect(Object.keys(res.body).sort()).toEqual(TEST_FIELDS);
  expect(res.body.latency_ms).toEqual(expect.any(Number));
  expect(Number.isInteger(res.body.latency_ms)).toBe(true);
  expect(res.body.tested_at).toMatch(RFC3339_MS);
  for (const check of res.body.checks) {
    expect(check).toMatchObject({
      name: expect.any(String),
      ok: expect.any(Boolean),
      latency_ms: expect.any(Number),
      message: expect.any(String),
    });
  }
  return res;
}

describe('connector types', () => {
  it('lists each type with its category and the JSON Schema of its config, secret fields marked', async () => {
    const res = await call<{ data: ConnectorTypeDescription[] }>(stack, 'GET', '/v2/connector-types');
    expect(res.status).toBe(200);
    expect(res.headers.get('x-request-id')).toBeTruthy();
    const pg = res.body.data.find((t) => t.type === 'postgres');
    expect(pg).toMatchObject({
      category: expect.any(String),
      config_schema: expect.objectContaining({ type: 'object' }),
    });
    const properties = pg?.config_schema['properties'] as Record<string, unknown>;
    expect(JSON.stringify(properties['password'])).toMatch(/secret|writeOnly/);
  });
});

describe('connectors', () => {
  it('creates: 201, Location, ETag, status untested, the password masked', async () => {
    const res = await createConnector(localPostgresConfig({ password: 'hunter2-create' }));
    expect(Object.keys(res.body).sort()).toEqual(CONNECTOR_FIELDS);
    expect(res.body).toMatchObject({ type: 'postgres', status: 'untested', last_test: null, project_id: null });
    expect(res.body.id).toMatch(/^con_/);
    expect(res.body.config.password).toBe('********');
    expect(res.body.config).toMatchObject({ host: '127.0.0.1', database: 'postgres', user: 'postgres' });
    expect(res.body.created_at).toMatch(RFC3339_MS);
    expect(res.headers.get('location')).toBe(`/v2/connectors/${res.body.id}`);
    expect(res.headers.get('etag')).toBeTruthy();
    expect(res.text).not.toContain('hunter2-create');

    const got = await call<Connector>(stack, 'GET', `/v2/connectors/${res.body.id}`);
    expect(got.status).toBe(200);
    expect(got.body).toEqual(res.body);
    expect(got.headers.get('etag')).toBe(res.headers.get('etag'));
  });

  it('validates the config against the schema of its type (422 with every field), and refuses unknown types', async () => {
    const bad = await call<ProblemDocument>(stack, 'POST', '/v2/connectors', {
      body: { name: uniqueName('bad'), type: 'postgres', config: { host: '', port: 'x', extra: 1 } },
    });
    expectProblem(bad, 422, 'validation_failed');
    expect((bad.body.errors ?? []).length).toBeGreaterThanOrEqual(3);
    const unknown = await call<Connector>(stack, 'POST', '/v2/connectors', {
      body: { name: uniqueName('bad'), type: 'telepathy', config: {} },
    });
    expect(unknown.status).toBe(422);
  });

  it('updates with If-Match (200, new ETag; stale 412); "********" keeps the stored password', async () => {
    const created = await createConnector(localPostgresConfig({ password: 'keep-me-secret' }));
    const etag = created.headers.get('etag')!;
    const name = uniqueName('renamed');
    const updated = await call<Connector>(stack, 'PUT', `/v2/connectors/${created.body.id}`, {
      body: { name, config: { ...created.body.config, password: '********' } },
      headers: { 'if-match': etag },
    });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ id: created.body.id, name, type: 'postgres' });
    expect(updated.body.config.password).toBe('********');
    expect(updated.headers.get('etag')).toBeTruthy();
    expect(updated.headers.get('etag')).not.toBe(etag);
    expectProblem(
      await call<Connector>(stack, 'PUT', `/v2/connectors/${created.body.id}`, {
        body: { name, config: created.body.config },
        headers: { 'if-match': etag },
      }),
      412,
      'precondition_failed',
    );
  });

  it('refuses a duplicate name (409 name_taken) and deletes with 204', async () => {
    const created = await createConnector(localPostgresConfig());
    expectProblem(
      await call<Connector>(stack, 'POST', '/v2/connectors', {
        body: { name: created.body.name, type: 'postgres', config: localPostgresConfig() },
      }),
      409,
      'name_taken',
    );
    const res = await call(stack, 'DELETE', `/v2/connectors/${created.body.id}`);
    expect(res.status).toBe(204);
    expectProblem(await call<Connector>(stack, 'GET', `/v2/connectors/${created.body.id}`), 404, 'not_found');
    expectProblem(
      await call<ConnectionTestResult>(stack, 'POST', `/v2/connectors/${created.body.id}/test`),
      404,
      'not_found',
    );
  });

  it('lists with filters: project_id, type; an unknown type is a 400', async () => {
    const project = await call<Project>(stack, 'POST', '/v2/projects', { body: { name: uniqueName('cp') } });
    const ids: string[] = [];
    for (let i = 0; i < 5; i++)
      ids.push((await createConnector(localPostgresConfig(), { project_id: project.body.id })).body.id);
    await createConnector(localPostgresConfig());

    const seen: string[] = [];
    let cursor: string | null = null;
    for (let page = 0; page < 3; page++) {
      const res: ApiResponse<Page<Connector>> = await call<Page<Connector>>(
        stack,
        'GET',
        `/v2/connectors?project_id=${project.body.id}&type=postgres&limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      );
      expect(res.status).toBe(200);
      for (const c of res.body.data) expect(c).toMatchObject({ project_id: project.body.id, type: 'postgres' });
      seen.push(...res.body.data.map((c: { id: string }) => c.id));
      cursor = res.body.next_cursor;
    }
    expect(cursor).toBeNull();
    expect(seen).toEqual([...ids].reverse());
    expectProblem(await call<Page<Connector>>(stack, 'GET', '/v2/connectors?type=telepathy'), 400, 'invalid_parameter');
  });
});

describe('test connection', () => {
  it('connects to the local PostgreSQL: ok, checks all ok, server version; status becomes ok', async () => {
    const created = await createConnector(localPostgresConfig());
    const res = await testConnection(created.body.id);
    expect(res.body.ok).toBe(true);
    expect(res.body.error_class).toBeNull();
    expect(res.body.checks.length).toBeGreaterThan(0);
    expect(res.body.checks.every((c: { ok: boolean }) => c.ok)).toBe(true);
    expect(res.body.details.server_version).toEqual(expect.any(String));
    const after = await call<Connector>(stack, 'GET', `/v2/connectors/${created.body.id}`);
    expect(after.body.status).toBe('ok');
    expect(after.body.last_test).toEqual(res.body);
  });

  it('a user that does not exist is ok:false with config_error; status becomes failed', async () => {
    // The local server trusts local connections, so a wrong password would pass: an unknown role cannot.
    const created = await createConnector(
      localPostgresConfig({ user: `nobody_${Date.now()}`, password: 'wrong-password-x' }),
    );
    const res = await testConnection(created.body.id);
    expect(res.body).toMatchObject({ ok: false, error_class: 'config_error' });
    expect(res.body.checks.some((c: { ok: boolean }) => !c.ok)).toBe(true);
    expect(res.text).not.toContain('wrong-password-x');
    expect((await call<Connector>(stack, 'GET', `/v2/connectors/${created.body.id}`)).body.status).toBe('failed');
  });

  it('a closed port is ok:false with transient_error, within 10 s', async () => {
    const created = await createConnector(localPostgresConfig({ port: await closedPort() }));
    const res = await testConnection(created.body.id);
    expect(res.body).toMatchObject({ ok: false, error_class: 'transient_error' });
    const failed = res.body.checks.find((c: { ok: boolean }) => !c.ok);
    expect(failed?.name).toBe('connect');
    expect((await call<Connector>(stack, 'GET', `/v2/connectors/${created.body.id}`)).body.status).toBe('failed');
  });

  it('a server that accepts and never answers is ok:false with transient_error at the 10 s budget: a 200, never a 503', async () => {
    const silent = createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const port = (silent.address() as AddressInfo).port;
      const created = await createConnector(localPostgresConfig({ port, connect_timeout_ms: 60_000 }));
      const started = Date.now();
      const res = await testConnection(created.body.id);
      const tookMs = Date.now() - started;
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ ok: false, error_class: 'transient_error' });
      expect(res.body.message).toMatch(/timed out/);
      expect(tookMs).toBeGreaterThanOrEqual(9_500);
      expect(tookMs).toBeLessThan(13_000);
    } finally {
      silent.close();
    }
  }, 30_000);

  it('a changed config sends the status back to untested', async () => {
    const created = await createConnector(localPostgresConfig());
    await testConnection(created.body.id);
    const updated = await call<Connector>(stack, 'PUT', `/v2/connectors/${created.body.id}`, {
      body: { name: created.body.name, config: localPostgresConfig({ schema: 'pg_catalog' }) },
    });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ status: 'untested', last_test: null });
  });
});
