import { startStack, type Stack } from '@conduit/testing';
import { call, expectProblem, type ApiResponse } from './support/client.js';
import { localPostgresConfig, mintToken, uniqueName } from './support/helpers.js';
import type {
  Connector,
  CreatedApiKey,
  Job,
  Page,
  Pipeline,
  PipelineValidation,
  Project,
  Tenant,
  ProblemDocument,
} from '@conduit/contracts';

// Every error status of api.md (Errors), each a problem document with its documented code.
// 503 kills the catalog, so it lives in unavailable.e2e.ts with a stack of its own.
let stack: Stack;
let projectId: string;
let pipelineId: string;
let connectorId: string;
let jobId: string;

beforeAll(async () => {
  stack = await startStack({ CONNECTOR_ALLOW_PRIVATE_NETWORKS: 'true' });
  const project = await call<Project>(stack, 'POST', '/v2/projects', { body: { name: uniqueName('errors') } });
  expect(project.status).toBe(201);
  projectId = project.body.id;
  const connector = await call<Connector>(stack, 'POST', '/v2/connectors', {
    body: { name: uniqueName('pg'), type: 'postgres', config: localPostgresConfig() },
  });
  expect(connector.status).toBe(201);
  connectorId = connector.body.id;
  const pipeline = await call<Pipeline>(stack, 'POST', '/v2/pipelines', {
    body: {
      name: uniqueName('p'),
      dag: { nodes: [{ id: 'q', type: 'sql', config: { connector_id: connectorId, sql: 'select 1' } }], edges: [] },
    },
  });
  expect(pipeline.status).toBe(201);
  pipelineId = pipeline.body.id;
  const job = await call<Job>(stack, 'POST', '/v2/jobs', { body: { name: uniqueName('j'), pipeline_id: pipelineId } });
  expect(job.status).toBe(201);
  jobId = job.body.id;
});

afterAll(async () => {
  await stack?.stop();
});

async function apiKey(scopes: string[], extra: Record<string, unknown> = {}): Promise<string> {
  const res = await call<CreatedApiKey>(stack, 'POST', '/v2/api-keys', {
    body: { name: uniqueName('key'), scopes, ...extra },
  });
  expect(res.status).toBe(201);
  return res.body.key;
}

describe('400', () => {
  it('malformed_json for a body that is not JSON', async () => {
    const res = await call<ProblemDocument>(stack, 'POST', '/v2/projects', {
      rawBody: '{"name": "x",',
      headers: { 'content-type': 'application/json' },
    });
    expectProblem(res, 400, 'malformed_json');
    expect(res.body.instance).toBe('/v2/projects');
    expect(res.body.detail).toBe('the body is not valid JSON (at character 13)');
  });

  it.each([
    ['abc', 0],
    ['  {"name": tru}', 14],
    ['{"name": "s3cr3t-value', 22],
  ])('malformed_json for %j says where it stops, never what it holds', async (rawBody, position) => {
    const res = await call<ProblemDocument>(stack, 'POST', '/v2/projects', {
      rawBody,
      headers: { 'content-type': 'application/json' },
    });
    expectProblem(res, 400, 'malformed_json');
    expect(res.body.detail).toBe(`the body is not valid JSON (at character ${position})`);
  });

  it.each([
    ['limit=0', '/v2/projects?limit=0'],
    ['limit=500', '/v2/projects?limit=500'],
    ['limit=abc', '/v2/pipelines?limit=abc'],
    ['a garbage cursor', '/v2/projects?cursor=garbage'],
    ['an unknown query parameter', '/v2/projects?colour=blue'],
  ])('invalid_parameter for %s', async (_what, path) => {
    expectProblem(await call(stack, 'GET', path), 400, 'invalid_parameter');
  });
});

describe('400 invalid_parameter for a query the operation does not take', () => {
  it.each([
    ['a query parameter on a read by id', () => `/v2/projects/${projectId}?foo=1`],
    ['a list filter on a read by id', () => `/v2/projects/${projectId}?limit=5`],
    ['a query parameter on the templates', () => '/v2/templates?x=y'],
  ])('%s', async (_what, path) => {
    const res = await call<ProblemDocument>(stack, 'GET', path());
    expectProblem(res, 400, 'invalid_parameter');
    expect(res.body.errors?.[0]).toMatchObject({ code: 'unknown_field' });
  });

  it.each([
    ['/v2/connectors?project_id=garbage', 'project_id'],
    ['/v2/pipelines?project_id=prj_short', 'project_id'],
    ['/v2/jobs?pipeline_id=garbage', 'pipeline_id'],
    ['/v2/alerts?job_id=garbage', 'job_id'],
    ['/v2/metrics?job_id=run_01J0000000000000000000000Z', 'job_id'],
  ])('a filter %s that cannot be an id', async (path, field) => {
    const res = await call<ProblemDocument>(stack, 'GET', path);
    expectProblem(res, 400, 'invalid_parameter');
    expect(res.body.errors).toEqual([{ path: field, code: 'invalid_id', message: expect.any(String) }]);
  });

  it('a well-formed id of nothing still filters to an empty page', async () => {
    const res = await call<Page<Pipeline>>(stack, 'GET', '/v2/pipelines?project_id=prj_01J0000000000000000000000Z');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: [], next_cursor: null });
  });
});

describe('401', () => {
  async function expect401(opts: Parameters<typeof call>[3]): Promise<void> {
    const res = await call<Page<Project>>(stack, 'GET', '/v2/projects', opts);
    expectProblem(res, 401, 'unauthenticated');
    expect(res.headers.get('www-authenticate')).toBeTruthy();
  }

  it('without a credential', () => expect401({ key: null }));
  it('with an unknown key', () => expect401({ key: 'cnd_not_a_key_of_ours_0123456789abcdef' }));
  it('with an expired JWT', async () =>
    expect401({ bearer: await mintToken(stack, { tenant_id: 'tnt_00000000000000000000000000', expiresInS: -3600 }) }));
  it('with a JWT of a bad signature', async () =>
    expect401({
      bearer: await mintToken(stack, { tenant_id: 'tnt_00000000000000000000000000', secret: 'x'.repeat(64) }),
    }));
  it('with a bearer that is not a JWT', () => expect401({ bearer: 'not.a.jwt' }));
});

describe('403', () => {
  it('a read-only key cannot POST', async () => {
    const key = await apiKey(['read']);
    expect((await call<Page<Project>>(stack, 'GET', '/v2/projects', { key })).status).toBe(200);
    expectProblem(
      await call<Project>(stack, 'POST', '/v2/projects', { key, body: { name: uniqueName('ro') } }),
      403,
      'forbidden',
    );
  });
});

describe('404', () => {
  it.each([
    ['an unknown id', () => '/v2/projects/prj_01J0000000000000000000000Z'],
    ['an unknown route', () => '/v2/no-such-thing'],
    ['a malformed id', () => '/v2/pipelines/not-an-id'],
    ['a 5,000-character id', () => `/v2/connectors/con_${'a'.repeat(5000)}`],
    ['another version prefix', () => '/v3/projects'],
    ['a trailing slash (no route, not a 405)', () => '/v2/projects/'],
    ['a trailing slash after an id', () => `/v2/projects/${projectId}/`],
    ['no version prefix', () => '/projects'],
  ])('for %s', async (_what, path) => {
    expectProblem(await call(stack, 'GET', path()), 404, 'not_found');
  });

  it("for another tenant's resource", async () => {
    const tenant = await call<{ tenant: Tenant; api_key: CreatedApiKey }>(stack, 'POST', '/v2/tenants', {
      body: { name: uniqueName('other') },
    });
    expect(tenant.status).toBe(201);
    const key = tenant.body.api_key.key;
    expectProblem(await call<Project>(stack, 'GET', `/v2/projects/${projectId}`, { key }), 404, 'not_found');
    expectProblem(await call(stack, 'DELETE', `/v2/projects/${projectId}`, { key }), 404, 'not_found');
  });
});

describe('405', () => {
  it('a known path with a wrong method, with Allow', async () => {
    const collection = await call(stack, 'DELETE', '/v2/projects');
    expectProblem(collection, 405, 'method_not_allowed');
    expect(collection.headers.get('allow')?.split(/,\s*/).sort()).toEqual(['GET', 'POST']);
    const item = await call<Project>(stack, 'PATCH', `/v2/projects/${projectId}`, { body: { name: 'x' } });
    expectProblem(item, 405, 'method_not_allowed');
    expect(item.headers.get('allow')?.split(/,\s*/).sort()).toEqual(['DELETE', 'GET', 'PUT']);
  });
});

describe('409', () => {
  it('name_taken', async () => {
    const name = uniqueName('taken');
    expect((await call<Project>(stack, 'POST', '/v2/projects', { body: { name } })).status).toBe(201);
    expectProblem(await call<Project>(stack, 'POST', '/v2/projects', { body: { name } }), 409, 'name_taken');
  });

  it('project_not_empty', async () => {
    const project = await call<Project>(stack, 'POST', '/v2/projects', { body: { name: uniqueName('full') } });
    const pipeline = await call<Pipeline>(stack, 'POST', '/v2/pipelines', {
      body: { name: 'p', project_id: project.body.id, dag: { nodes: [], edges: [] } },
    });
    expect(pipeline.status).toBe(201);
    expectProblem(await call(stack, 'DELETE', `/v2/projects/${project.body.id}`), 409, 'project_not_empty');
  });
});

describe('412', () => {
  it('If-Match that does not match the ETag', async () => {
    const res = await call<Project>(stack, 'PUT', `/v2/projects/${projectId}`, {
      body: { name: uniqueName('x') },
      headers: { 'if-match': '"stale-etag"' },
    });
    expectProblem(res, 412, 'precondition_failed');
  });
});

describe('413', () => {
  it.each([
    ['just over 1 MiB', 1024 * 1024 + 10],
    ['10 MB', 10 * 1024 * 1024],
  ])('payload_too_large for a body of %s', async (_what, size) => {
    const body = JSON.stringify({ name: 'big', description: 'd'.repeat(size) });
    const res = await call<Project>(stack, 'POST', '/v2/projects', {
      rawBody: body,
      headers: { 'content-type': 'application/json' },
    });
    expectProblem(res, 413, 'payload_too_large');
  });
});

describe('415', () => {
  it('unsupported_media_type for a text/plain body', async () => {
    const res = await call<Project>(stack, 'POST', '/v2/projects', {
      rawBody: JSON.stringify({ name: 'plain' }),
      headers: { 'content-type': 'text/plain' },
    });
    expectProblem(res, 415, 'unsupported_media_type');
  });

  it('unsupported_media_type for a body without a content type', async () => {
    const res = await call<Project>(stack, 'POST', '/v2/projects', {
      rawBody: Buffer.from(JSON.stringify({ name: 'none' })),
    });
    expectProblem(res, 415, 'unsupported_media_type');
  });
});

describe('422', () => {
  it('missing fields', async () => {
    const res = await call<ProblemDocument>(stack, 'POST', '/v2/pipelines', { body: {} });
    expectProblem(res, 422, 'validation_failed');
    expect((res.body.errors ?? []).map((e: { path: string }) => e.path).sort()).toEqual(['dag', 'name']);
  });

  it('an unknown body field', async () => {
    const res = await call<ProblemDocument>(stack, 'POST', '/v2/projects', {
      body: { name: uniqueName('typo'), descripton: 'typo' },
    });
    expectProblem(res, 422, 'validation_failed');
    expect(res.body.errors).toEqual([
      expect.objectContaining({ path: 'descripton', code: expect.any(String), message: expect.any(String) }),
    ]);
  });

  it.each([
    ['validate', () => `/v2/pipelines/${pipelineId}/validate`],
    ['test connection', () => `/v2/connectors/${connectorId}/test`],
    ['pause', () => `/v2/jobs/${jobId}/pause`],
    ['resume', () => `/v2/jobs/${jobId}/resume`],
  ])('a body field on %s, which takes no body; nothing changes', async (_what, path) => {
    const res = await call<ProblemDocument>(stack, 'POST', path(), { body: { foo: 1 } });
    expectProblem(res, 422, 'validation_failed');
    expect(res.body.errors).toEqual([{ path: 'foo', code: 'unknown_field', message: expect.any(String) }]);
    expect((await call<Job>(stack, 'GET', `/v2/jobs/${jobId}`)).body.status).toBe('active');
  });

  it('an empty object on an operation without a body is no field at fault', async () => {
    const res = await call<PipelineValidation>(stack, 'POST', `/v2/pipelines/${pipelineId}/validate`, { body: {} });
    expect(res.status).toBe(200);
  });

  it('several fields at fault, all listed with their paths', async () => {
    const res = await call<ProblemDocument>(stack, 'POST', '/v2/connectors', {
      body: { name: 5, type: '', config: [], extra: true },
    });
    expectProblem(res, 422, 'validation_failed');
    const paths = (res.body.errors ?? []).map((e: { path: string }) => e.path).sort();
    expect(paths).toEqual(['config', 'extra', 'name', 'type']);
    for (const e of res.body.errors ?? [])
      expect(e).toMatchObject({ path: expect.any(String), code: expect.any(String), message: expect.any(String) });
  });

  it.each([
    [
      'a job',
      '/v2/jobs',
      { name: '', pipeline_id: 'pln_01J0000000000000000000000Z', schedule: '* * * * * *' },
      { name: 'too_short', schedule: 'invalid_cron', pipeline_id: 'unknown_pipeline' },
    ],
    [
      'a project',
      '/v2/projects',
      { name: '', template: 'no-such-template' },
      { name: 'too_short', template: 'unknown_template' },
    ],
    [
      'a connector',
      '/v2/connectors',
      {
        name: '',
        type: 'postgres',
        config: { host: 'h', port: 5432, database: 'd', user: 'u' },
        project_id: 'prj_01J0000000000000000000000Z',
      },
      { name: 'too_short', project_id: 'unknown_project' },
    ],
    [
      'a pipeline',
      '/v2/pipelines',
      { name: 'p', dag: 'not an object', project_id: 'garbage' },
      { dag: 'invalid_type', project_id: 'unknown_project' },
    ],
  ])('references to nothing are listed beside the other faults of %s', async (_what, path, body, expected) => {
    const res = await call<ProblemDocument>(stack, 'POST', path, { body });
    expectProblem(res, 422, 'validation_failed');
    const codes = Object.fromEntries(
      (res.body.errors ?? []).map((e: { path: string; code: string }) => [e.path, e.code]),
    );
    expect(codes).toEqual(expected);
  });
});

describe('nested fields listed beside the top-level faults (api.md: errors[] lists every field at fault)', () => {
  const codesOf = (res: ApiResponse<ProblemDocument>) =>
    Object.fromEntries((res.body.errors ?? []).map((e: { path: string; code: string }) => [e.path, e.code]));

  it("a pipeline's DAG shape beside a bad name and an unknown field, and nothing stored", async () => {
    const name = `nested-${Date.now()}`;
    const body = { name: '', foo: 1, dag: { nodes: [{ id: 1 }], edges: [{}] } };
    const res = await call<ProblemDocument>(stack, 'POST', '/v2/pipelines', { body });
    expectProblem(res, 422, 'validation_failed');
    expect(codesOf(res)).toMatchObject({ name: 'too_short', foo: 'unknown_field' });
    expect(Object.keys(codesOf(res))).toEqual(
      expect.arrayContaining(['dag.nodes[0].id', 'dag.nodes[0].type', 'dag.nodes[0].config', 'dag.edges[0].from']),
    );
    // The same DAG in a body that is otherwise fine: the same DAG faults, from the catalog.
    const alone = await call<ProblemDocument>(stack, 'POST', '/v2/pipelines', { body: { name, dag: body.dag } });
    expect(
      Object.keys(codesOf(alone))
        .filter((p) => p.startsWith('dag'))
        .sort(),
    ).toEqual(
      Object.keys(codesOf(res))
        .filter((p) => p.startsWith('dag'))
        .sort(),
    );
    const listed = await call<Page<{ name: string }>>(stack, 'GET', '/v2/pipelines?limit=200');
    expect(listed.body.data.map((p) => p.name)).not.toContain(name);
  });

  it("a new connector's config beside a bad name; an update's config is the catalog's to judge", async () => {
    const created = await call<ProblemDocument>(stack, 'POST', '/v2/connectors', {
      body: { name: 5, type: 'postgres', config: { host: 1, port: 99999, hots: 'x' }, extra: true },
    });
    expectProblem(created, 422, 'validation_failed');
    expect(codesOf(created)).toEqual({
      name: 'invalid_type',
      extra: 'unknown_field',
      'config.host': 'invalid_type',
      'config.port': 'out_of_range',
      'config.hots': 'unknown_field',
      'config.database': 'required',
      'config.user': 'required',
    });

    // Judged against the stored type (a postgres connector sent as mysql is `immutable`, not mysql's config rules)
    // and with the stored secrets merged in, which only the catalog has: the name first, then the rest.
    const config = { host: 'db.example.com', port: 5432, database: 'd', user: 'u', password: 'secret-pw-1' };
    const ok = await call<{ id: string }>(stack, 'POST', '/v2/connectors', {
      body: { name: `nested-${Date.now()}`, type: 'postgres', config },
    });
    expect(ok.status).toBe(201);
    const renamed = await call<ProblemDocument>(stack, 'PUT', `/v2/connectors/${ok.body.id}`, {
      body: { name: '', type: 'mysql', config: { host: 'h', database: 'd', user: 'u', schema: 'public' } },
    });
    expect(codesOf(renamed)).toEqual({ name: 'too_short' });
    const retyped = await call<ProblemDocument>(stack, 'PUT', `/v2/connectors/${ok.body.id}`, {
      body: { name: 'fine', type: 'mysql', config: { host: 'h', database: 'd', user: 'u', schema: 'public' } },
    });
    expect(codesOf(retyped)).toMatchObject({ type: 'immutable' });
  });

  it('a body of thousands of faults lists at most 100 nested ones beside its own', async () => {
    const config: Record<string, unknown> = { host: 'h', database: 'd', user: 'u' };
    const body: Record<string, unknown> = { name: 'ok', type: 'postgres', config };
    for (let i = 0; i < 20_000; i++) {
      config[`c${i}`] = 0;
      body[`k${i}`] = 0;
    }
    const res = await call<ProblemDocument>(stack, 'POST', '/v2/connectors', { body });
    expectProblem(res, 422, 'validation_failed');
    const paths = (res.body.errors ?? []).map((e: { path: string }) => e.path);
    expect(paths.filter((p) => p.startsWith('config.')).length).toBe(100);
    expect(paths.filter((p) => p.startsWith('k')).length).toBeGreaterThan(0);
  });
});

describe('429', () => {
  it('beyond the per-key rate limit, with Retry-After, RateLimit-Policy and RateLimit', async () => {
    const key = await apiKey(['read'], { rate_limit_per_minute: 5 });
    const first = await call<Page<Project>>(stack, 'GET', '/v2/projects?limit=1', { key });
    expect(first.status).toBe(200);
    expect(first.headers.get('ratelimit-policy')).toMatch(/q=5/);
    expect(first.headers.get('ratelimit')).toBeTruthy();
    let limited: ApiResponse | undefined;
    for (let i = 0; i < 10 && !limited; i++) {
      const res = await call<Page<Project>>(stack, 'GET', '/v2/projects?limit=1', { key });
      if (res.status === 429) limited = res;
      else expect(res.status).toBe(200);
    }
    if (!limited) throw new Error('no 429 in 10 requests beyond a limit of 5 a minute');
    expectProblem(limited, 429, 'rate_limited');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(limited.headers.get('ratelimit-policy')).toMatch(/q=5/);
    expect(limited.headers.get('ratelimit')).toBeTruthy();
    // Another credential is not affected.
    expect((await call<Page<Project>>(stack, 'GET', '/v2/projects?limit=1')).status).toBe(200);
  });
});

describe('problem documents', () => {
  it('carry type, title, status, code, detail, instance and request_id, with no stack trace', async () => {
    const res = await call<ProblemDocument>(stack, 'GET', '/v2/projects/prj_01J0000000000000000000000Z', {
      headers: { 'x-request-id': 'trace-me-42' },
    });
    expectProblem(res, 404, 'not_found');
    expect(res.body).toMatchObject({
      instance: '/v2/projects/prj_01J0000000000000000000000Z',
      request_id: 'trace-me-42',
    });
    expect(res.text).not.toMatch(/\bat .*\.js:\d+/);
  });
});
