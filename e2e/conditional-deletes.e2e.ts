import { startStack, type Stack } from '@conduit/testing';
import { call, expectProblem } from './support/client.js';
import { localPostgresConfig, uniqueName } from './support/helpers.js';

// A DELETE with If-Match deletes only the version the client read (docs/api-decisions.md, 412): a stale ETag is a
// 412 that changes nothing, the current one deletes, `*` deletes whatever is there, and no If-Match is unconditional.
let stack: Stack;

beforeAll(async () => {
  stack = await startStack({
    CONNECTOR_ALLOW_PRIVATE_NETWORKS: 'true',
    WEBHOOK_ALLOW_HTTP: 'true',
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
  });
});

afterAll(async () => {
  await stack?.stop();
});

interface Kind {
  path: string;
  /** A new resource's create body. */
  create: () => Promise<Record<string, unknown>>;
  /** An update of it (PUT replaces the whole body; a webhook's is a PATCH) that gives it a new ETag. */
  update: (body: Record<string, unknown>) => { method: 'PUT' | 'PATCH'; body: Record<string, unknown> };
}

async function created(path: string, body: Record<string, unknown>): Promise<string> {
  const res = await call<{ id: string }>(stack, 'POST', path, { body });
  expect(res.status).toBe(201);
  return res.body.id;
}

const pipelineBody = async () => ({ name: uniqueName('p'), dag: { nodes: [], edges: [] } });
const replaced = (body: Record<string, unknown>) => ({
  method: 'PUT' as const,
  body: { ...body, name: uniqueName('renamed') },
});

const KINDS: Record<string, Kind> = {
  project: { path: '/v2/projects', create: async () => ({ name: uniqueName('project') }), update: replaced },
  pipeline: { path: '/v2/pipelines', create: pipelineBody, update: replaced },
  connector: {
    path: '/v2/connectors',
    create: async () => ({ name: uniqueName('pg'), type: 'postgres', config: localPostgresConfig() }),
    update: replaced,
  },
  job: {
    path: '/v2/jobs',
    create: async () => ({
      name: uniqueName('job'),
      pipeline_id: await created('/v2/pipelines', await pipelineBody()),
    }),
    update: replaced,
  },
  webhook: {
    path: '/v2/webhooks',
    create: async () => ({
      url: 'http://127.0.0.1:9/hook',
      events: ['job.completed'],
      secret: `whsec_${Buffer.from('a webhook secret of 24 b').toString('base64')}`,
    }),
    update: () => ({ method: 'PATCH', body: { description: 'changed' } }),
  },
};

describe.each(Object.entries(KINDS))('DELETE of a %s with If-Match', (_kind, kind) => {
  async function etagOf(id: string): Promise<string> {
    const res = await call(stack, 'GET', `${kind.path}/${id}`);
    expect(res.status).toBe(200);
    return res.headers.get('etag')!;
  }

  it('is a 412 that changes nothing when the resource changed since it was read, and deletes the version read', async () => {
    const body = await kind.create();
    const id = await created(kind.path, body);
    const read = await etagOf(id);
    const { method, body: changed } = kind.update(body);
    const updated = await call(stack, method, `${kind.path}/${id}`, { body: changed, headers: { 'if-match': read } });
    expect(updated.status).toBe(200);
    const current = updated.headers.get('etag')!;
    expect(current).not.toBe(read);

    const stale = await call(stack, 'DELETE', `${kind.path}/${id}`, { headers: { 'if-match': read } });
    expectProblem(stale, 412, 'precondition_failed');
    expect(await etagOf(id)).toBe(current);

    const deleted = await call(stack, 'DELETE', `${kind.path}/${id}`, { headers: { 'if-match': current } });
    expect(deleted.status).toBe(204);
    expect((await call(stack, 'GET', `${kind.path}/${id}`)).status).toBe(404);
    // Gone: a second conditional delete finds nothing to compare.
    const again = await call(stack, 'DELETE', `${kind.path}/${id}`, { headers: { 'if-match': current } });
    expectProblem(again, 404, 'not_found');
  });

  it('deletes whatever version is there with `*`, and without If-Match', async () => {
    const any = await created(kind.path, await kind.create());
    expect((await call(stack, 'DELETE', `${kind.path}/${any}`, { headers: { 'if-match': '*' } })).status).toBe(204);
    const plain = await created(kind.path, await kind.create());
    expect((await call(stack, 'DELETE', `${kind.path}/${plain}`)).status).toBe(204);
    expect((await call(stack, 'GET', `${kind.path}/${plain}`)).status).toBe(404);
  });
});

it('documents If-Match on each of these deletes', async () => {
  const doc = await call<{
    paths: Record<string, Record<string, { parameters?: { $ref?: string; name?: string }[] }>>;
  }>(stack, 'GET', '/v2/openapi.json');
  expect(doc.status).toBe(200);
  for (const path of ['projects', 'pipelines', 'connectors', 'jobs', 'webhooks']) {
    const [, operations] = Object.entries(doc.body.paths).find(
      ([p, ops]) => p.startsWith(`/v2/${path}/{`) && ops.delete !== undefined && p.split('/').length === 4,
    )!;
    expect(JSON.stringify(operations.delete!.parameters)).toMatch(/IfMatch|If-Match/);
  }
});
