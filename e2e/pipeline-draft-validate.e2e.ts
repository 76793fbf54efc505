import { createConduitClient, type Dag } from '@conduit/sdk';
import type { Stack } from '@conduit/testing';
import type { Pipeline, PipelineValidation, ProblemDocument } from '@conduit/contracts';
import { call, expectProblem } from './support/client.js';
import { RFC3339_MS, copyDag, mintToken, uniqueName } from './support/helpers.js';
import { useTargetStack } from './support/target-stack.js';

// Validate Pipeline with a draft (`POST /v2/pipelines/{id}/validate` with `{ dag }`, docs/api-decisions.md): the
// draft is validated by the saved DAG's rules and nothing is stored. The console validates its editor's text with it.
const target = useTargetStack();
let stack: Stack;
let connectorId: string;
let saved: Pipeline;

beforeAll(async () => {
  ({ stack, connectorId } = target);
  const created = await call<Pipeline>(stack, 'POST', '/v2/pipelines', {
    body: { name: uniqueName('draft-target'), dag: copyDag(connectorId) },
  });
  expect([created.status, created.body.status]).toEqual([201, 'valid']);
  saved = created.body;
}, 60_000);

const validatePath = () => `/v2/pipelines/${saved.id}/validate`;

/** The pipeline as stored must be the one created: same version, status, DAG, stored validation and ETag. */
async function expectUnchanged(): Promise<void> {
  const now = await call<Pipeline>(stack, 'GET', `/v2/pipelines/${saved.id}`);
  expect(now.body).toEqual(saved);
}

/** A source, a transform and a sink, with `change` applied to a copy. */
function draft(change: (dag: { nodes: Record<string, unknown>[]; edges: Record<string, unknown>[] }) => void) {
  const dag = {
    nodes: [
      { id: 'extract', type: 'source', config: { connector_id: connectorId, table: 'orders' } },
      { id: 'clean', type: 'transform', config: { sql: 'select * from extract' } },
      { id: 'load', type: 'sink', config: { connector_id: connectorId, table: 'orders_copy', mode: 'append' } },
    ] as Record<string, unknown>[],
    edges: [
      { from: 'extract', to: 'clean' },
      { from: 'clean', to: 'load' },
    ] as Record<string, unknown>[],
  };
  change(dag);
  return dag;
}

it('validates a valid draft with its levels, and stores nothing', async () => {
  const res = await call<PipelineValidation>(stack, 'POST', validatePath(), { body: { dag: draft(() => {}) } });
  expect(res.status).toBe(200);
  expect(Object.keys(res.body).sort()).toEqual(['errors', 'execution_order', 'valid', 'validated_at', 'warnings']);
  expect(res.body).toMatchObject({ valid: true, errors: [], execution_order: [['extract'], ['clean'], ['load']] });
  expect(res.body.validated_at).toMatch(RFC3339_MS);
  // The saved DAG has two nodes: the answer was the draft's.
  expect(saved.validation.execution_order).toEqual([['extract'], ['load']]);
  await expectUnchanged();
});

it('reports a cycle, an unknown connector and a bad node config on their edges, nodes and paths', async () => {
  const unknownConnector = 'con_01J0000000000000000000000Z';
  const dag = draft((d) => {
    d.nodes[0]!['config'] = { connector_id: unknownConnector, table: 'orders' };
    d.nodes[2]!['config'] = { connector_id: connectorId, table: 'orders_copy', mode: 'sideways' };
    d.nodes.push({ id: 'again', type: 'transform', config: { sql: 'select * from clean' } });
    d.edges.push({ from: 'clean', to: 'again' }, { from: 'again', to: 'clean' });
  });
  const res = await call<PipelineValidation>(stack, 'POST', validatePath(), { body: { dag } });
  expect(res.status).toBe(200);
  expect(res.body.valid).toBe(false);
  const byCode = (code: string) => res.body.errors.filter((e) => e.code === code);
  expect(byCode('cycle')).toEqual([
    expect.objectContaining({ cycle: expect.arrayContaining(['clean', 'again']) as unknown }),
  ]);
  expect(byCode('unknown_connector')).toEqual([
    expect.objectContaining({ node_id: 'extract', path: 'nodes[0].config.connector_id' }),
  ]);
  expect(byCode('invalid_node_config')).toEqual([
    expect.objectContaining({ node_id: 'load', path: 'nodes[2].config.mode' }),
  ]);
  await expectUnchanged();
});

it('puts an error on the edge it concerns', async () => {
  const dag = draft((d) => {
    d.edges[1] = { from: 'clean', to: 'load', when: 'big' };
  });
  const res = await call<PipelineValidation>(stack, 'POST', validatePath(), { body: { dag } });
  expect(res.body.errors).toEqual([
    expect.objectContaining({
      code: 'when_without_decision',
      edge: { from: 'clean', to: 'load' },
      path: 'edges[1].when',
    }),
  ]);
  await expectUnchanged();
});

it('is client.pipelines.validate(id, { dag }) in the SDK', async () => {
  const client = createConduitClient({ baseUrl: stack.baseUrl, apiKey: stack.bootstrapKey });
  const dag = draft((d) => d.edges.pop()) as unknown as Dag;
  const result = await client.pipelines.validate(saved.id, { dag });
  expect(result.errors.map((e) => [e.code, e.node_id])).toEqual([['missing_input', 'load']]);
  await expectUnchanged();
});

it('validates the saved DAG and stores the result without a body, or with an empty one', async () => {
  for (const body of [undefined, {}]) {
    const res = await call<PipelineValidation>(stack, 'POST', validatePath(), body === undefined ? {} : { body });
    expect([res.status, res.body.valid, res.body.execution_order]).toEqual([200, true, [['extract'], ['load']]]);
    const stored = await call<Pipeline>(stack, 'GET', `/v2/pipelines/${saved.id}`);
    expect(stored.body.validation).toEqual(res.body);
    expect(stored.body.version).toBe(saved.version);
    saved = stored.body;
  }
});

it('refuses what an update would refuse, and a body that is no object, with a problem; nothing changes', async () => {
  const shape = await call<ProblemDocument>(stack, 'POST', validatePath(), {
    body: { dag: { nodes: [{ id: 1, type: 'source' }], edges: 'none' } },
  });
  expectProblem(shape, 422, 'validation_failed');
  expect((shape.body.errors ?? []).map((e) => e.path)).toEqual(
    expect.arrayContaining(['dag.nodes[0].id', 'dag.nodes[0].config', 'dag.edges']),
  );
  for (const [body, path] of [
    [[1, 2], ''],
    [{ dag: [] }, 'dag'],
    [{ dag: {}, name: 'x' }, 'name'],
  ] as const) {
    const res = await call<ProblemDocument>(stack, 'POST', validatePath(), { body });
    expectProblem(res, 422, 'validation_failed');
    expect([body, (res.body.errors ?? []).map((e) => e.path)]).toEqual([body, [path]]);
  }
  const notJson = await call(stack, 'POST', validatePath(), {
    rawBody: '{"dag": {',
    headers: { 'content-type': 'application/json' },
  });
  expectProblem(notJson, 400, 'malformed_json');
  await expectUnchanged();
});

it('keeps the limits: a draft over 500 nodes is invalid for it, a body over 1 MiB is a 413', async () => {
  const nodes = Array.from({ length: 501 }, (_, i) => ({
    id: `n${i}`,
    type: 'transform',
    config: { sql: 'select 1' },
  }));
  const many = await call<PipelineValidation>(stack, 'POST', validatePath(), { body: { dag: { nodes, edges: [] } } });
  expect(many.status).toBe(200);
  expect(many.body.errors.map((e) => e.code)).toContain('too_many_nodes');
  const padding = 'x'.repeat(1024 * 1024);
  const big = await call(stack, 'POST', validatePath(), {
    body: { dag: draft((d) => (d.nodes[1]!['config'] = { sql: 'select 1', note: padding })) },
  });
  expectProblem(big, 413, 'payload_too_large');
  await expectUnchanged();
});

it("answers another tenant's pipeline, or none, by 404, draft or not; read scope is a 403", async () => {
  const other = await mintToken(stack, { tenant_id: 'tnt_draft_other', scope: 'read write' });
  const body = { dag: draft(() => {}) };
  expectProblem(await call(stack, 'POST', validatePath(), { bearer: other, body }), 404, 'not_found');
  expectProblem(await call(stack, 'POST', validatePath(), { bearer: other }), 404, 'not_found');
  const missing = '/v2/pipelines/pln_01J0000000000000000000000Z/validate';
  expectProblem(await call(stack, 'POST', missing, { body }), 404, 'not_found');
  const reader = await mintToken(stack, { tenant_id: 'tnt_draft_other', scope: 'read' });
  expectProblem(await call(stack, 'POST', validatePath(), { bearer: reader, body }), 403, 'forbidden');
  await expectUnchanged();
});
