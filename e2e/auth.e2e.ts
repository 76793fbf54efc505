import { startStack, type Stack } from '@conduit/testing';
import { call, expectProblem, problemCode } from './support/client.js';
import { RFC3339_MS, copyDag, listAll, localPostgresConfig, mintToken, uniqueName } from './support/helpers.js';
import type {
  ApiKey,
  ConnectionTestResult,
  Connector,
  CreatedApiKey,
  Page,
  Pipeline,
  PipelineValidation,
  Project,
  Tenant,
} from '@conduit/contracts';

// API keys, scopes, bearer JWTs, tenant isolation, secret masking and idempotent replay (api.md, Authentication
// and tenancy; Idempotency and concurrency; Connector secrets).
let stack: Stack;
const SECRET = `s3cr3t-${Math.random().toString(36).slice(2)}-pw`;
const SECRET_2 = `an0ther-${Math.random().toString(36).slice(2)}-pw`;

beforeAll(async () => {
  stack = await startStack({ CONNECTOR_ALLOW_PRIVATE_NETWORKS: 'true' });
});

afterAll(async () => {
  await stack?.stop();
});

async function newTenant(): Promise<{ tenantId: string; key: string }> {
  const res = await call<{ tenant: Tenant; api_key: CreatedApiKey }>(stack, 'POST', '/v2/tenants', {
    body: { name: uniqueName('tenant') },
  });
  expect(res.status).toBe(201);
  expect(res.headers.get('location')).toBe(`/v2/tenants/${res.body.tenant.id}`);
  return { tenantId: res.body.tenant.id, key: res.body.api_key.key };
}

describe('API keys', () => {
  it('creates a key shown once, lists without it, and a revoked key is refused at once', async () => {
    const created = await call<CreatedApiKey>(stack, 'POST', '/v2/api-keys', {
      body: { name: uniqueName('ci'), scopes: ['read', 'write'] },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      id: expect.stringMatching(/^key_/),
      key: expect.any(String),
      scopes: ['read', 'write'],
    });
    expect(created.body.created_at).toMatch(RFC3339_MS);
    expect(created.headers.get('location')).toBeTruthy();
    const key = created.body.key;
    expect((await call<Page<Project>>(stack, 'GET', '/v2/projects', { key })).status).toBe(200);

    const list = await call<Page<ApiKey>>(stack, 'GET', '/v2/api-keys');
    expect(list.status).toBe(200);
    expect(list.body.data.map((k: { id: string }) => k.id)).toContain(created.body.id);
    expect(list.text).not.toContain(key);
    for (const k of list.body.data) expect(k).not.toHaveProperty('key');

    const revoked = await call(stack, 'DELETE', `/v2/api-keys/${created.body.id}`);
    expect(revoked.status).toBe(204);
    const after = await call<Page<Project>>(stack, 'GET', '/v2/projects', { key });
    expectProblem(after, 401, 'unauthenticated');
    expect(after.headers.get('www-authenticate')).toBeTruthy();
    expect(
      (await call<Page<ApiKey>>(stack, 'GET', '/v2/api-keys')).body.data.map((k: { id: string }) => k.id),
    ).not.toContain(created.body.id);
  });

  it('enforces scopes: read cannot write, write cannot manage keys, admin can', async () => {
    const make = async (scopes: string[]) =>
      (await call<CreatedApiKey>(stack, 'POST', '/v2/api-keys', { body: { name: uniqueName('s'), scopes } })).body.key;
    const read = await make(['read']);
    const write = await make(['write']);
    expect((await call<Page<Project>>(stack, 'GET', '/v2/projects', { key: read })).status).toBe(200);
    expectProblem(
      await call<Project>(stack, 'POST', '/v2/projects', { key: read, body: { name: uniqueName('r') } }),
      403,
      'forbidden',
    );
    expectProblem(
      await call<CreatedApiKey>(stack, 'POST', '/v2/api-keys', { key: read, body: { name: 'x', scopes: ['read'] } }),
      403,
      'forbidden',
    );
    expect(
      (await call<Project>(stack, 'POST', '/v2/projects', { key: write, body: { name: uniqueName('w') } })).status,
    ).toBe(201);
    expectProblem(await call<Page<ApiKey>>(stack, 'GET', '/v2/api-keys', { key: write }), 403, 'forbidden');
    expectProblem(
      await call<CreatedApiKey>(stack, 'POST', '/v2/api-keys', { key: write, body: { name: 'x', scopes: ['admin'] } }),
      403,
      'forbidden',
    );
  });
});

describe('bearer JWT', () => {
  it('works for every operation, with the tenant from the claim', async () => {
    const { tenantId } = await newTenant();
    const bearer = await mintToken(stack, { tenant_id: tenantId, scope: 'read write admin' });
    const project = await call<Project>(stack, 'POST', '/v2/projects', { bearer, body: { name: uniqueName('jwt') } });
    expect(project.status).toBe(201);
    const pid = project.body.id;
    expect((await call<Project>(stack, 'GET', `/v2/projects/${pid}`, { bearer })).status).toBe(200);
    expect(
      (await call<Project>(stack, 'PUT', `/v2/projects/${pid}`, { bearer, body: { name: uniqueName('jwt2') } })).status,
    ).toBe(200);
    const connector = await call<Connector>(stack, 'POST', '/v2/connectors', {
      bearer,
      body: { name: 'pg', type: 'postgres', config: localPostgresConfig() },
    });
    expect(connector.status).toBe(201);
    const cid = connector.body.id;
    expect((await call<ConnectionTestResult>(stack, 'POST', `/v2/connectors/${cid}/test`, { bearer })).body.ok).toBe(
      true,
    );
    const pipeline = await call<Pipeline>(stack, 'POST', '/v2/pipelines', {
      bearer,
      body: { name: 'p', dag: copyDag(cid), project_id: pid },
    });
    expect(pipeline.status).toBe(201);
    expect(
      (await call<PipelineValidation>(stack, 'POST', `/v2/pipelines/${pipeline.body.id}/validate`, { bearer })).body
        .valid,
    ).toBe(true);
    for (const path of [
      '/v2/projects',
      '/v2/pipelines',
      '/v2/connectors',
      '/v2/templates',
      '/v2/connector-types',
      '/v2/api-keys',
    ]) {
      expect({ path, status: (await call(stack, 'GET', path, { bearer })).status }).toEqual({ path, status: 200 });
    }
    // The token's tenant, not the bootstrap tenant, owns what it made.
    expectProblem(await call<Project>(stack, 'GET', `/v2/projects/${pid}`), 404, 'not_found');
    expect((await call(stack, 'DELETE', `/v2/pipelines/${pipeline.body.id}`, { bearer })).status).toBe(204);
    expect((await call(stack, 'DELETE', `/v2/connectors/${cid}`, { bearer })).status).toBe(204);
    expect((await call(stack, 'DELETE', `/v2/projects/${pid}`, { bearer })).status).toBe(204);
  });

  it('honours the scope claim', async () => {
    const { tenantId } = await newTenant();
    const bearer = await mintToken(stack, { tenant_id: tenantId, scope: 'read' });
    expect((await call<Page<Project>>(stack, 'GET', '/v2/projects', { bearer })).status).toBe(200);
    expectProblem(
      await call<Project>(stack, 'POST', '/v2/projects', { bearer, body: { name: 'nope' } }),
      403,
      'forbidden',
    );
  });
});

describe('tenants', () => {
  it("reads a tenant at its create's Location: an operator any, an admin its own, anyone else a 404", async () => {
    const a = await newTenant();
    const b = await newTenant();
    const asOperator = await call<Tenant>(stack, 'GET', `/v2/tenants/${a.tenantId}`);
    expect(asOperator.status).toBe(200);
    expect(asOperator.body).toEqual({ id: a.tenantId, name: expect.any(String), created_at: expect.any(String) });
    expect((await call<Tenant>(stack, 'GET', `/v2/tenants/${a.tenantId}`, { key: a.key })).body.id).toBe(a.tenantId);
    for (const [key, id] of [
      [b.key, a.tenantId],
      [a.key, 'tnt_00000000000000000000000000'],
      [a.key, 'not-an-id'],
    ] as const)
      expect((await call(stack, 'GET', `/v2/tenants/${id}`, { key })).status).toBe(404);
  });
});

describe('tenant isolation', () => {
  it("answers 404 on every operation on another tenant's resources, and lists are disjoint", async () => {
    const a = await newTenant();
    const project = await call<Project>(stack, 'POST', '/v2/projects', { key: a.key, body: { name: 'mine' } });
    const connector = await call<Connector>(stack, 'POST', '/v2/connectors', {
      key: a.key,
      body: { name: 'mine', type: 'postgres', config: localPostgresConfig() },
    });
    const pipeline = await call<Pipeline>(stack, 'POST', '/v2/pipelines', {
      key: a.key,
      body: { name: 'mine', dag: copyDag(connector.body.id) },
    });
    for (const r of [project, connector, pipeline]) expect(r.status).toBe(201);

    const b = await newTenant();
    const bearerB = await mintToken(stack, { tenant_id: b.tenantId });
    for (const as of [{ key: b.key }, { bearer: bearerB }]) {
      const attempts: [string, string, unknown?][] = [
        ['GET', `/v2/projects/${project.body.id}`],
        ['PUT', `/v2/projects/${project.body.id}`, { name: 'stolen' }],
        ['DELETE', `/v2/projects/${project.body.id}`],
        ['GET', `/v2/pipelines/${pipeline.body.id}`],
        ['PUT', `/v2/pipelines/${pipeline.body.id}`, { name: 'stolen', dag: { nodes: [], edges: [] } }],
        ['POST', `/v2/pipelines/${pipeline.body.id}/validate`],
        ['DELETE', `/v2/pipelines/${pipeline.body.id}`],
        ['GET', `/v2/connectors/${connector.body.id}`],
        ['PUT', `/v2/connectors/${connector.body.id}`, { name: 'stolen', config: localPostgresConfig() }],
        ['POST', `/v2/connectors/${connector.body.id}/test`],
        ['DELETE', `/v2/connectors/${connector.body.id}`],
      ];
      for (const [method, path, body] of attempts) {
        const res = await call(stack, method, path, body === undefined ? as : { ...as, body });
        expect({ method, path, status: res.status, code: problemCode(res) }).toEqual({
          method,
          path,
          status: 404,
          code: 'not_found',
        });
      }
      // B cannot hang its pipeline on A's project either.
      const foreignProject = await call<Pipeline>(stack, 'POST', '/v2/pipelines', {
        ...as,
        body: { name: uniqueName('x'), dag: { nodes: [], edges: [] }, project_id: project.body.id },
      });
      expect(foreignProject.status).toBe(422);
    }
    // Nothing of A changed.
    expect((await call<Project>(stack, 'GET', `/v2/projects/${project.body.id}`, { key: a.key })).body.name).toBe(
      'mine',
    );
    expect((await call<Pipeline>(stack, 'GET', `/v2/pipelines/${pipeline.body.id}`, { key: a.key })).body.version).toBe(
      1,
    );

    await call<Project>(stack, 'POST', '/v2/projects', { key: b.key, body: { name: 'theirs' } });
    for (const path of ['/v2/projects', '/v2/pipelines', '/v2/connectors']) {
      const listA = (await listAll(stack, path, { key: a.key })).map((r) => r.id);
      const listB = (await listAll(stack, path, { key: b.key })).map((r) => r.id);
      expect(listA.filter((id) => listB.includes(id))).toEqual([]);
    }
    expect((await listAll(stack, '/v2/projects', { key: a.key })).map((p) => p.id)).toEqual([project.body.id]);
    expect(await listAll(stack, '/v2/connectors', { key: b.key })).toEqual([]);
  });
});

describe('secret masking', () => {
  it('never answers a connector password (create, get, list, update)', async () => {
    const created = await call<Connector>(stack, 'POST', '/v2/connectors', {
      body: { name: uniqueName('secret'), type: 'postgres', config: localPostgresConfig({ password: SECRET }) },
    });
    expect(created.status).toBe(201);
    expect(created.body.config.password).toBe('********');
    const bodies = [created.text];
    bodies.push((await call<Connector>(stack, 'GET', `/v2/connectors/${created.body.id}`)).text);
    bodies.push((await call<Page<Connector>>(stack, 'GET', '/v2/connectors?limit=200')).text);
    const updated = await call<Connector>(stack, 'PUT', `/v2/connectors/${created.body.id}`, {
      body: { name: created.body.name, config: localPostgresConfig({ password: SECRET_2 }) },
    });
    expect(updated.status).toBe(200);
    expect(updated.body.config.password).toBe('********');
    bodies.push(updated.text);
    bodies.push((await call<ConnectionTestResult>(stack, 'POST', `/v2/connectors/${created.body.id}/test`)).text);
    // A refused write must not echo the secret in its errors.
    const refused = await call<Connector>(stack, 'POST', '/v2/connectors', {
      body: { name: uniqueName('secret'), type: 'postgres', config: { password: SECRET, port: 'x' } },
    });
    expect(refused.status).toBe(422);
    bodies.push(refused.text);
    for (const text of bodies) {
      expect(text).not.toContain(SECRET);
      expect(text).not.toContain(SECRET_2);
    }
  });
});

describe('idempotent replay', () => {
  it('replays the same key and body without a second resource; another body is a 422', async () => {
    const name = uniqueName('idem');
    const idem = `idem-${name}`;
    const first = await call<Project>(stack, 'POST', '/v2/projects', {
      body: { name },
      headers: { 'idempotency-key': idem },
    });
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const second = await call<Project>(stack, 'POST', '/v2/projects', {
      body: { name },
      headers: { 'idempotency-key': idem },
    });
    expect(second.status).toBe(201);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(second.body).toEqual(first.body);
    expect(second.headers.get('location')).toBe(first.headers.get('location'));
    const matching = (await listAll<{ id: string; name: string }>(stack, '/v2/projects')).filter(
      (p) => p.name === name,
    );
    expect(matching).toHaveLength(1);
    // The same body is the same JSON value, whatever the order its fields were written in.
    const json = { 'idempotency-key': `${idem}-order`, 'content-type': 'application/json' };
    const ordered = await call<Project>(stack, 'POST', '/v2/projects', {
      rawBody: `{"name":"${name}-order","description":"d"}`,
      headers: json,
    });
    const reordered = await call<Project>(stack, 'POST', '/v2/projects', {
      rawBody: `{"description":"d","name":"${name}-order"}`,
      headers: json,
    });
    expect([ordered.status, reordered.status]).toEqual([201, 201]);
    expect(reordered.headers.get('idempotent-replayed')).toBe('true');
    expect(reordered.body.id).toBe(ordered.body.id);

    const reused = await call<Project>(stack, 'POST', '/v2/projects', {
      body: { name: `${name}-other` },
      headers: { 'idempotency-key': idem },
    });
    expectProblem(reused, 422, 'idempotency_key_reused');
    expect(
      (await listAll<{ id: string; name: string }>(stack, '/v2/projects')).some((p) => p.name === `${name}-other`),
    ).toBe(false);
  });

  it('keeps keys per tenant', async () => {
    const other = await newTenant();
    const idem = `idem-${uniqueName('shared')}`;
    const mine = await call<Project>(stack, 'POST', '/v2/projects', {
      body: { name: 'same-name' },
      headers: { 'idempotency-key': idem },
    });
    const theirs = await call<Project>(stack, 'POST', '/v2/projects', {
      key: other.key,
      body: { name: 'same-name' },
      headers: { 'idempotency-key': idem },
    });
    expect([mine.status, theirs.status]).toEqual([201, 201]);
    expect(theirs.headers.get('idempotent-replayed')).toBeNull();
    expect(theirs.body.id).not.toBe(mine.body.id);
  });
});

describe('logs', () => {
  it('never hold a connector password (checked at the end of the suite)', () => {
    const logs = stack.logs();
    expect(logs.length).toBeGreaterThan(0);
    expect(logs).not.toContain(SECRET);
    expect(logs).not.toContain(SECRET_2);
  });
});
