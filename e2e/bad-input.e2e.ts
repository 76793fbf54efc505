import { startStack, type Stack } from '@conduit/testing';
import { call, type ApiResponse, type CallOptions } from './support/client.js';
import { expectHealthy, listAll, localPostgresConfig, uniqueName } from './support/helpers.js';
import type { Page, Pipeline, Project } from '@conduit/contracts';

// Hostile and odd input: nothing crashes, hangs or answers 5xx, and a request that fails writes nothing.
let stack: Stack;

beforeAll(async () => {
  stack = await startStack({ CONNECTOR_ALLOW_PRIVATE_NETWORKS: 'true' });
});

afterAll(async () => {
  await stack?.stop();
});

interface Counts {
  projects: number;
  pipelines: number;
  connectors: number;
}

async function counts(): Promise<Counts> {
  const [projects, pipelines, connectors] = await Promise.all(
    ['/v2/projects', '/v2/pipelines', '/v2/connectors'].map(async (path) => (await listAll(stack, path)).length),
  );
  return { projects: projects!, pipelines: pipelines!, connectors: connectors! };
}

/**
 * Sends one request and checks what must hold whatever it answers: a 4xx problem document or a success, never a
 * 5xx; a refused request changed no count; the services still answer afterwards.
 */
async function survive<T = unknown>(method: string, path: string, opts: CallOptions): Promise<ApiResponse<T>> {
  const before = await counts();
  const res = await call<T>(stack, method, path, opts);
  expect(res.status).toBeLessThan(500);
  expect(res.headers.get('x-request-id')).toBeTruthy();
  if (res.status >= 400) {
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(await counts()).toEqual(before);
  }
  await expectHealthy(stack);
  return res;
}

const json = { 'content-type': 'application/json' };

it('a 10 MB body is a 413 and writes nothing', async () => {
  const rawBody = JSON.stringify({ name: uniqueName('huge'), description: 'x'.repeat(10 * 1024 * 1024) });
  const res = await survive('POST', '/v2/projects', { rawBody, headers: json });
  expect(res.status).toBe(413);
});

it('JSON nested 10,000 deep is refused with a 4xx, without blowing the stack', async () => {
  const depth = 10_000;
  const rawBody = `{"name":"${uniqueName('deep')}","dag":{"nodes":[],"edges":[],"x":${'['.repeat(depth)}${']'.repeat(depth)}}}`;
  const res = await survive('POST', '/v2/pipelines', { rawBody, headers: json });
  expect([400, 422]).toContain(res.status);
  const objects = `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
  expect([400, 422]).toContain((await survive('POST', '/v2/projects', { rawBody: objects, headers: json })).status);
});

it('a 10,000-node DAG is a 422 or stored invalid (more than 500 nodes), never a crash', async () => {
  const nodes = Array.from({ length: 10_000 }, (_, i) => ({
    id: `n${i}`,
    type: 'transform',
    config: { sql: 'select 1' },
  }));
  const edges = nodes.slice(1).map((n, i) => ({ from: `n${i}`, to: n.id }));
  const res = await survive<Pipeline>('POST', '/v2/pipelines', {
    body: { name: uniqueName('big-dag'), dag: { nodes, edges } },
  });
  if (res.status === 201) {
    expect(res.body.status).toBe('invalid');
    expect(res.body.validation.errors.map((e: { code: string }) => e.code)).toContain('too_many_nodes');
  } else {
    expect(res.status).toBe(422);
  }
  const over = Array.from({ length: 501 }, (_, i) => ({ id: `n${i}`, type: 'transform', config: { sql: 'select 1' } }));
  const stored = await survive<Pipeline>('POST', '/v2/pipelines', {
    body: { name: uniqueName('501'), dag: { nodes: over, edges: [] } },
  });
  expect(stored.status).toBe(201);
  expect(stored.body.status).toBe('invalid');
  expect(stored.body.validation.errors.map((e: { code: string }) => e.code)).toContain('too_many_nodes');
});

it.each([
  ['emoji', '🚀 pipeline 👩‍👩‍👧‍👦 ✓'],
  ['right-to-left', 'خط أنابيب البيانات עברית'],
  ['combining marks', 'Cafe\u0301 Z\u0335\u0308a\u0336lgo'],
  ['CJK and astral', '数据管道 𝒳𝒴𝒵'],
])('unicode names (%s) are stored and answered exactly', async (_what, text) => {
  const name = `${text} ${uniqueName('u')}`;
  const project = await survive<Project>('POST', '/v2/projects', { body: { name, description: text } });
  expect(project.status).toBe(201);
  expect(project.body.name).toBe(name);
  expect(project.body.description).toBe(text);
  const got = await call<Project>(stack, 'GET', `/v2/projects/${project.body.id}`);
  expect(got.body.name).toBe(name);
  expect(Buffer.from(got.body.name).equals(Buffer.from(name))).toBe(true);
  const pipeline = await survive<Pipeline>('POST', '/v2/pipelines', {
    body: { name, description: text, dag: { nodes: [], edges: [] } },
  });
  expect(pipeline.status).toBe(201);
  expect((await call<Pipeline>(stack, 'GET', `/v2/pipelines/${pipeline.body.id}`)).body.name).toBe(name);
});

it('a 5,000-character path id is a 404 on every operation', async () => {
  const long = `prj_${'7'.repeat(5000)}`;
  for (const [method, path, body] of [
    ['GET', `/v2/projects/${long}`],
    ['PUT', `/v2/projects/${long}`, { name: 'x' }],
    ['DELETE', `/v2/projects/${long}`],
    ['POST', `/v2/pipelines/pln_${'7'.repeat(5000)}/validate`],
    ['POST', `/v2/connectors/con_${'7'.repeat(5000)}/test`],
  ] as const) {
    const res = await survive(method, path, body ? { body } : {});
    expect({ method, status: res.status }).toEqual({ method, status: 404 });
  }
});

it('null bytes in strings are refused or stored exactly, never a 500', async () => {
  const name = `nul\u0000byte ${uniqueName('n')}`;
  for (const [path, body] of [
    ['/v2/projects', { name }],
    ['/v2/projects', { name: uniqueName('nul-desc'), description: 'a\u0000b' }],
    [
      '/v2/pipelines',
      { name, dag: { nodes: [{ id: 'a\u0000', type: 'transform', config: { sql: '\u0000' } }], edges: [] } },
    ],
    ['/v2/connectors', { name, type: 'postgres', config: localPostgresConfig({ password: 'p\u0000w' }) }],
  ] as const) {
    const res = await survive<{ id: string }>('POST', path, { body });
    if (res.status === 201) {
      const got = await call<{ name: string }>(stack, 'GET', `${path}/${res.body.id}`);
      expect(got.body.name).toBe(body.name);
    } else {
      expect(res.status).toBe(422);
    }
  }
});

it('huge numbers are refused with 400/422 where they do not fit', async () => {
  expect((await survive('GET', '/v2/projects?limit=99999999999999999999999', {})).status).toBe(400);
  expect((await survive('GET', '/v2/projects?limit=1e308', {})).status).toBe(400);
  const port = await survive('POST', '/v2/connectors', {
    rawBody: `{"name":"${uniqueName('num')}","type":"postgres","config":{"host":"h","database":"d","user":"u","port":1e400}}`,
    headers: json,
  });
  expect(port.status).toBe(422);
  const key = await survive('POST', '/v2/api-keys', {
    body: { name: uniqueName('k'), scopes: ['read'], rate_limit_per_minute: 1e300 },
  });
  expect(key.status).toBe(422);
  // Inside a DAG's free-form config a big number is data: stored, not a crash.
  const dag = {
    nodes: [{ id: 'a', type: 'transform', config: { sql: 'select 1', timeout_seconds: 1e300 } }],
    edges: [],
  };
  const stored = await survive<Pipeline>('POST', '/v2/pipelines', { body: { name: uniqueName('num'), dag } });
  expect(stored.status).toBeLessThan(500);
  // Past a double's range JSON.parse makes Infinity, which would be stored as null: refused, naming the field.
  const infinite = await survive<{ errors: unknown[] }>('POST', '/v2/pipelines', {
    rawBody: JSON.stringify({ name: uniqueName('num'), dag }).replace('1e+300', '1e400'),
    headers: json,
  });
  expect([infinite.status, infinite.body.errors]).toEqual([
    422,
    [expect.objectContaining({ path: 'dag.nodes[0].config.timeout_seconds', code: 'number_out_of_range' })],
  ]);
});

it('a body that is not UTF-8 is a 400, never stored with replacement characters', async () => {
  const name = uniqueName('bytes');
  const rawBody = Buffer.concat([Buffer.from(`{"name":"${name}`), Buffer.from([0xff, 0xfe]), Buffer.from('"}')]);
  const res = await survive<{ code: string }>('POST', '/v2/projects', { rawBody, headers: json });
  expect([res.status, res.body.code]).toEqual([400, 'malformed_json']);
});

it.each([
  ['an array as the body', '/v2/projects', []],
  ['a string as the body', '/v2/projects', 'project'],
  ['null as the body', '/v2/projects', null],
  ['an array as the dag', '/v2/pipelines', { name: 'arr', dag: [] }],
  [
    'an array as a node config',
    '/v2/pipelines',
    { name: 'arr', dag: { nodes: [{ id: 'a', type: 'transform', config: [] }], edges: [] } },
  ],
  ['an array as the connector config', '/v2/connectors', { name: 'arr', type: 'postgres', config: ['host'] }],
  ['an object as the name', '/v2/projects', { name: { first: 'x' } }],
])('%s is a 422', async (_what, path, body) => {
  const res = await survive('POST', path, { rawBody: JSON.stringify(body), headers: json });
  expect(res.status).toBe(422);
});

it('prototype keys neither pollute nor crash', async () => {
  for (const rawBody of [
    `{"name":"${uniqueName('proto')}","__proto__":{"admin":true}}`,
    `{"name":"${uniqueName('proto')}","constructor":{"prototype":{"polluted":true}}}`,
    `{"__proto__":{"name":"from-proto"}}`,
  ]) {
    expect((await survive('POST', '/v2/projects', { rawBody, headers: json })).status).toBe(422);
  }
  // As data inside a free-form config they are just keys.
  const dag = { nodes: [{ id: 'a', type: 'transform', config: { sql: 'select 1' } }], edges: [] };
  const raw = JSON.stringify({ name: uniqueName('proto-dag'), dag }).replace(
    '"sql":',
    '"__proto__":{"x":1},"constructor":"c","sql":',
  );
  const res = await survive('POST', '/v2/pipelines', { rawBody: raw, headers: json });
  expect(res.status).toBeLessThan(500);
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  const list = await call<Page<Project>>(stack, 'GET', '/v2/projects?limit=1');
  expect(list.status).toBe(200);
});
