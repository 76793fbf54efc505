import { startStack, type Stack } from '@conduit/testing';
import { call, expectProblem, type ApiResponse } from './support/client.js';
import { RFC3339_MS, copyDag, listAll, localPostgresConfig, uniqueName } from './support/helpers.js';
import type { Connector, Page, Pipeline, PipelineValidation, Project, ProblemDocument } from '@conduit/contracts';

// Pipelines through the gateway, against api.md (Resources > Pipeline, the DAG, Validate Pipeline).
let stack: Stack;
let connectorId: string;

beforeAll(async () => {
  stack = await startStack({ CONNECTOR_ALLOW_PRIVATE_NETWORKS: 'true' });
  const connector = await call<Connector>(stack, 'POST', '/v2/connectors', {
    body: { name: uniqueName('pg'), type: 'postgres', config: localPostgresConfig() },
  });
  expect(connector.status).toBe(201);
  connectorId = connector.body.id;
});

afterAll(async () => {
  await stack?.stop();
});

const PIPELINE_FIELDS = [
  'created_at',
  'dag',
  'description',
  'id',
  'name',
  'project_id',
  'status',
  'updated_at',
  'validation',
  'version',
];

function expectValidation(v: PipelineValidation): void {
  expect(v).toMatchObject({
    valid: expect.any(Boolean),
    errors: expect.any(Array),
    warnings: expect.any(Array),
    execution_order: expect.any(Array),
  });
  expect(v.validated_at).toMatch(RFC3339_MS);
}

describe('pipelines', () => {
  it('creates a valid pipeline: 201, Location, ETag, version 1, status valid', async () => {
    const name = uniqueName('copy');
    const res = await call<Pipeline>(stack, 'POST', '/v2/pipelines', {
      body: { name, description: 'copy orders', dag: copyDag(connectorId) },
    });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(PIPELINE_FIELDS);
    expect(res.body).toMatchObject({
      name,
      description: 'copy orders',
      project_id: null,
      version: 1,
      status: 'valid',
      dag: copyDag(connectorId),
    });
    expect(res.body.id).toMatch(/^pln_/);
    expect(res.body.created_at).toMatch(RFC3339_MS);
    expect(res.body.updated_at).toMatch(RFC3339_MS);
    expectValidation(res.body.validation);
    expect(res.body.validation.valid).toBe(true);
    expect(res.body.validation.execution_order).toEqual([['extract'], ['load']]);
    expect(res.headers.get('location')).toBe(`/v2/pipelines/${res.body.id}`);
    expect(res.headers.get('etag')).toBeTruthy();
    expect(res.headers.get('x-request-id')).toBeTruthy();

    const got = await call<Pipeline>(stack, 'GET', `/v2/pipelines/${res.body.id}`);
    expect(got.status).toBe(200);
    expect(got.body).toEqual(res.body);
    expect(got.headers.get('etag')).toBe(res.headers.get('etag'));
  });

  it('stores a DAG that breaks validation rules as invalid instead of refusing it', async () => {
    const dag = {
      nodes: [{ id: 'a', type: 'transform', config: { sql: 'select 1' } }],
      edges: [{ from: 'a', to: 'a' }],
    };
    const res = await call<Pipeline>(stack, 'POST', '/v2/pipelines', { body: { name: uniqueName('draft'), dag } });
    expect(res.status).toBe(201);
    expect(res.body.status).toBe('invalid');
    expect(res.body.validation.valid).toBe(false);
    expect(res.body.validation.errors.map((e: { code: string }) => e.code)).toContain('self_loop');
  });

  it('refuses a DAG of the wrong shape with 422, listing every fault with its path', async () => {
    const dag = { nodes: [{ id: 1, type: 'source' }, 'not-a-node'], edges: [{ from: 'a' }] };
    const res = await call<ProblemDocument>(stack, 'POST', '/v2/pipelines', {
      body: { name: uniqueName('shape'), dag },
    });
    expectProblem(res, 422, 'validation_failed');
    const paths = (res.body.errors ?? []).map((e: { path: string }) => e.path);
    expect(paths).toEqual(
      expect.arrayContaining(['dag.nodes[0].id', 'dag.nodes[0].config', 'dag.nodes[1]', 'dag.edges[0].to']),
    );
  });

  it('refuses an unknown project with 422', async () => {
    const res = await call<ProblemDocument>(stack, 'POST', '/v2/pipelines', {
      body: { name: uniqueName('orphan'), dag: copyDag(connectorId), project_id: 'prj_01J00000000000000000000000' },
    });
    expect(res.status).toBe(422);
    expect((res.body.errors ?? []).map((e: { path: string }) => e.path)).toContain('project_id');
  });

  it('updates with If-Match: 200 with version + 1 and a new ETag; a stale ETag is a 412', async () => {
    const created = await call<Pipeline>(stack, 'POST', '/v2/pipelines', {
      body: { name: uniqueName('upd'), dag: copyDag(connectorId) },
    });
    const etag = created.headers.get('etag')!;
    const dag = { nodes: [], edges: [] };
    const updated = await call<Pipeline>(stack, 'PUT', `/v2/pipelines/${created.body.id}`, {
      body: { name: created.body.name, description: 'now empty', dag },
      headers: { 'if-match': etag },
    });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({
      id: created.body.id,
      version: 2,
      description: 'now empty',
      dag,
      status: 'invalid',
      created_at: created.body.created_at,
    });
    expect(updated.body.validation.errors.map((e: { code: string }) => e.code)).toContain('empty_dag');
    expect(updated.headers.get('etag')).toBeTruthy();
    expect(updated.headers.get('etag')).not.toBe(etag);

    const stale = await call<Pipeline>(stack, 'PUT', `/v2/pipelines/${created.body.id}`, {
      body: { name: created.body.name, dag: copyDag(connectorId) },
      headers: { 'if-match': etag },
    });
    expectProblem(stale, 412, 'precondition_failed');
    const again = await call<Pipeline>(stack, 'PUT', `/v2/pipelines/${created.body.id}`, {
      body: { name: created.body.name, dag: copyDag(connectorId) },
    });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ version: 3, status: 'valid' });
    expect((await call<Pipeline>(stack, 'GET', `/v2/pipelines/${created.body.id}`)).body.version).toBe(3);
  });

  it('refuses a duplicate name with 409 name_taken', async () => {
    const name = uniqueName('dup');
    expect(
      (await call<Pipeline>(stack, 'POST', '/v2/pipelines', { body: { name, dag: copyDag(connectorId) } })).status,
    ).toBe(201);
    expectProblem(
      await call<Pipeline>(stack, 'POST', '/v2/pipelines', { body: { name, dag: copyDag(connectorId) } }),
      409,
      'name_taken',
    );
  });

  it('deletes with 204; then it is a 404', async () => {
    const created = await call<Pipeline>(stack, 'POST', '/v2/pipelines', {
      body: { name: uniqueName('del'), dag: copyDag(connectorId) },
    });
    const res = await call(stack, 'DELETE', `/v2/pipelines/${created.body.id}`);
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    expectProblem(await call<Pipeline>(stack, 'GET', `/v2/pipelines/${created.body.id}`), 404, 'not_found');
    expectProblem(
      await call<PipelineValidation>(stack, 'POST', `/v2/pipelines/${created.body.id}/validate`),
      404,
      'not_found',
    );
  });
});

describe('validate pipeline', () => {
  it('answers { valid, errors, warnings, execution_order, validated_at } with parallel levels', async () => {
    const dag = {
      nodes: [
        { id: 'a', type: 'source', config: { connector_id: connectorId, table: 'a' } },
        { id: 'b', type: 'source', config: { connector_id: connectorId, table: 'b' } },
        { id: 'j', type: 'transform', config: { sql: 'select * from a join b using (id)' } },
        { id: 'out', type: 'sink', config: { connector_id: connectorId, table: 'j', mode: 'upsert', key: ['id'] } },
      ],
      edges: [
        { from: 'a', to: 'j' },
        { from: 'b', to: 'j' },
        { from: 'j', to: 'out' },
      ],
    };
    const created = await call<Pipeline>(stack, 'POST', '/v2/pipelines', { body: { name: uniqueName('val'), dag } });
    const res = await call<PipelineValidation>(stack, 'POST', `/v2/pipelines/${created.body.id}/validate`);
    expect(res.status).toBe(200);
    expect(res.headers.get('x-request-id')).toBeTruthy();
    expect(Object.keys(res.body).sort()).toEqual(['errors', 'execution_order', 'valid', 'validated_at', 'warnings']);
    expectValidation(res.body);
    expect(res.body.valid).toBe(true);
    expect(res.body.errors).toEqual([]);
    expect(res.body.execution_order.map((level: string[]) => [...level].sort())).toEqual([['a', 'b'], ['j'], ['out']]);
  });

  it('reports several DAG errors at once, answers 200, and stores the result on the pipeline', async () => {
    const dag = {
      nodes: [
        { id: 'src', type: 'source', config: { connector_id: 'con_01J00000000000000000000000', table: 't' } },
        { id: 'src', type: 'transform', config: { sql: 'select 1' } },
        { id: 'x', type: 'teleport', config: {} },
        { id: 'c1', type: 'transform', config: { sql: 'select 1' } },
        { id: 'c2', type: 'transform', config: { sql: 'select 1' } },
        { id: 'orphan', type: 'sink', config: { connector_id: connectorId, table: 't', mode: 'append' } },
      ],
      edges: [
        { from: 'c1', to: 'c2' },
        { from: 'c2', to: 'c1' },
        { from: 'x', to: 'ghost' },
        { from: 'c1', to: 'x', when: 'yes' },
      ],
    };
    const created = await call<Pipeline>(stack, 'POST', '/v2/pipelines', { body: { name: uniqueName('bad'), dag } });
    expect(created.status).toBe(201);
    expect(created.body.status).toBe('invalid');
    const res = await call<PipelineValidation>(stack, 'POST', `/v2/pipelines/${created.body.id}/validate`);
    expect(res.status).toBe(200);
    expectValidation(res.body);
    expect(res.body.valid).toBe(false);
    const codes = new Set((res.body.errors ?? []).map((e: { code: string }) => e.code));
    for (const code of [
      'duplicate_node_id',
      'unknown_node_type',
      'unknown_node',
      'cycle',
      'unknown_connector',
      'when_without_decision',
      'missing_input',
    ]) {
      expect(codes).toContain(code);
    }
    for (const e of res.body.errors ?? [])
      expect(e).toMatchObject({ code: expect.any(String), message: expect.any(String) });
    const cycle = (res.body.errors ?? []).find((e: { code: string }) => e.code === 'cycle');
    expect(JSON.stringify(cycle)).toMatch(/c1/);
    const stored = await call<Pipeline>(stack, 'GET', `/v2/pipelines/${created.body.id}`);
    expect(stored.body.status).toBe('invalid');
    expect(stored.body.validation).toEqual(res.body);
  });

  it('re-validates against the connectors as they are now (a deleted connector makes the pipeline invalid)', async () => {
    const pg = await call<Connector>(stack, 'POST', '/v2/connectors', {
      body: { name: uniqueName('gone'), type: 'postgres', config: localPostgresConfig() },
    });
    const created = await call<Pipeline>(stack, 'POST', '/v2/pipelines', {
      body: { name: uniqueName('reval'), dag: copyDag(pg.body.id) },
    });
    expect(created.body.status).toBe('valid');
    expect((await call(stack, 'DELETE', `/v2/connectors/${pg.body.id}`)).status).toBe(204);
    const res = await call<PipelineValidation>(stack, 'POST', `/v2/pipelines/${created.body.id}/validate`);
    expect(res.body.valid).toBe(false);
    expect((res.body.errors ?? []).map((e: { code: string }) => e.code)).toContain('unknown_connector');
    expect((await call<Pipeline>(stack, 'GET', `/v2/pipelines/${created.body.id}`)).body.status).toBe('invalid');
  });
});

describe('listing pipelines', () => {
  it('pages three pages with limit=2 and filters by project_id', async () => {
    const project = await call<Project>(stack, 'POST', '/v2/projects', { body: { name: uniqueName('list') } });
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) {
      const res = await call<Pipeline>(stack, 'POST', '/v2/pipelines', {
        body: { name: `p${i}`, project_id: project.body.id, dag: copyDag(connectorId) },
      });
      expect(res.status).toBe(201);
      ids.push(res.body.id);
    }
    const seen: string[] = [];
    let cursor: string | null = null;
    for (let page = 0; page < 3; page++) {
      const q: string = `/v2/pipelines?project_id=${project.body.id}&limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
      const res: ApiResponse<Page<Pipeline>> = await call<Page<Pipeline>>(stack, 'GET', q);
      expect(res.status).toBe(200);
      expect(res.body.data).toHaveLength(2);
      for (const p of res.body.data) expect(p.project_id).toBe(project.body.id);
      seen.push(...res.body.data.map((p: { id: string }) => p.id));
      cursor = res.body.next_cursor;
    }
    expect(cursor).toBeNull();
    expect(seen).toEqual([...ids].reverse());

    const everything = await listAll<{ id: string }>(stack, '/v2/pipelines');
    expect(everything.length).toBeGreaterThan(6);
    expect(new Set(everything.map((p) => p.id)).size).toBe(everything.length);
  });
});
