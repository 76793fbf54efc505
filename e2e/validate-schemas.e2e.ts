import { performance } from 'node:perf_hooks';
import { stopProcess } from '@conduit/testing';
import type { Pipeline, PipelineValidation } from '@conduit/contracts';
import { call } from './support/client.js';
import { createPipelineAndJob, nodeOf, triggerRun, uniqueName, waitForRunEnd } from './support/helpers.js';
import { useTargetStack } from './support/target-stack.js';

// Validation binds transforms against known input schemas (issue 15, item 3), every service its own process: once a
// run recorded a PostgreSQL source's columns, a transform that names a column the source lacks is a validation
// error on that node; a changed source makes its columns unknown again; without the scheduler validation still
// answers, with a warning that schemas were not checked.
const QUERY = 'select id, amount, note from orders';
const GOOD_SQL = 'select id, amount * 2 as doubled from src where amount > 0';
const BAD_SQL = 'select id, discount * 2 as doubled from src';

const target = useTargetStack({
  env: { RATE_LIMIT_PER_MINUTE: '100000' },
  prepare: async (db) => {
    await db.query('create table orders (id integer primary key, amount numeric(12,2) not null, note text)');
    await db.query(`insert into orders values (1, 10.25, 'first'), (2, 0.10, null)`);
    await db.query('create table doubled (id integer, doubled numeric(18,2) not null)');
  },
});

function dag(sql: string, query = QUERY) {
  return {
    nodes: [
      { id: 'src', type: 'source', config: { connector_id: target.connectorId, query } },
      { id: 'calc', type: 'transform', config: { sql } },
      { id: 'out', type: 'sink', config: { connector_id: target.connectorId, table: 'doubled', mode: 'append' } },
    ],
    edges: [
      { from: 'src', to: 'calc' },
      { from: 'calc', to: 'out' },
    ],
  };
}

async function update(pipelineId: string, body: Record<string, unknown>): Promise<Pipeline> {
  const res = await call<Pipeline>(target.stack, 'PUT', `/v2/pipelines/${pipelineId}`, { body });
  if (res.status !== 200) throw new Error(`PUT answered ${res.status}: ${res.text}`);
  return res.body;
}

async function validate(pipelineId: string): Promise<PipelineValidation> {
  const res = await call<PipelineValidation>(target.stack, 'POST', `/v2/pipelines/${pipelineId}/validate`);
  if (res.status !== 200) throw new Error(`Validate answered ${res.status}: ${res.text}`);
  return res.body;
}

const unknownColumn = expect.objectContaining({
  code: 'unknown_column',
  node_id: 'calc',
  path: 'nodes[1].config.sql',
  message: expect.stringContaining('"discount"'),
});

describe('Validate Pipeline binds SQL against the columns runs recorded', () => {
  it('reports a column the source lacks once a run recorded its columns; says nothing once the source changed', async () => {
    const name = uniqueName('pln');
    const { pipelineId, jobId } = await createPipelineAndJob(target.stack, dag(GOOD_SQL));

    // Before any run nothing is known: the bad SQL is saved valid (the run would be the first to tell).
    expect((await update(pipelineId, { name, dag: dag(BAD_SQL) })).status).toBe('valid');
    await update(pipelineId, { name, dag: dag(GOOD_SQL) });

    const run = await waitForRunEnd(target.stack, jobId, (await triggerRun(target.stack, jobId)).id, 60_000);
    expect(run.status).toBe('succeeded');
    expect(nodeOf(run, 'src').columns).toEqual([
      { name: 'id', type: 'INTEGER', source_type: 'integer' },
      { name: 'amount', type: 'DECIMAL(12,2)', source_type: 'numeric(12,2)' },
      { name: 'note', type: 'VARCHAR', source_type: 'text' },
    ]);

    // The same source as the run: its columns are known, and `discount` is not among them.
    const saved = await update(pipelineId, { name, dag: dag(BAD_SQL) });
    expect(saved.status).toBe('invalid');
    expect(saved.validation.errors).toEqual([unknownColumn]);
    const checked = await validate(pipelineId);
    expect(checked).toMatchObject({ valid: false, errors: [unknownColumn], warnings: [] });
    expect((await call<Pipeline>(target.stack, 'GET', `/v2/pipelines/${pipelineId}`)).body.status).toBe('invalid');

    // A source whose query changed may have other columns now: unknown, so nothing is said about the transform.
    const changed = await update(pipelineId, { name, dag: dag(BAD_SQL, `${QUERY} where id > 0`) });
    expect(changed.validation).toMatchObject({ valid: true, errors: [], warnings: [] });
    expect(await validate(pipelineId)).toMatchObject({ valid: true, errors: [], warnings: [] });
  }, 120_000);

  it('a run is not refused for what recorded columns suggest: it binds against the source as it is now', async () => {
    const name = uniqueName('pln');
    const everything = 'select * from orders';
    const { pipelineId, jobId } = await createPipelineAndJob(target.stack, dag(GOOD_SQL, everything));
    expect((await waitForRunEnd(target.stack, jobId, (await triggerRun(target.stack, jobId)).id, 60_000)).status).toBe(
      'succeeded',
    );
    // The table gained the column after the run: validation, going by the run, reports it missing...
    await target.db.query('alter table orders add column discount numeric(12,2) not null default 1.50');
    try {
      expect((await update(pipelineId, { name, dag: dag(BAD_SQL, everything) })).validation.errors).toEqual([
        unknownColumn,
      ]);
      // ...yet Trigger Run takes it, the run reads the column and records it, and validation then agrees.
      const run = await waitForRunEnd(target.stack, jobId, (await triggerRun(target.stack, jobId)).id, 60_000);
      expect(run.status).toBe('succeeded');
      expect(nodeOf(run, 'src').columns?.map((c) => c.name)).toEqual(['id', 'amount', 'note', 'discount']);
      expect(await validate(pipelineId)).toMatchObject({ valid: true, errors: [], warnings: [] });
    } finally {
      await target.db.query('alter table orders drop column discount');
    }
  }, 120_000);

  it('without the scheduler, validation still answers at once, with a warning that schemas were not checked', async () => {
    const name = uniqueName('pln');
    const { pipelineId, jobId } = await createPipelineAndJob(target.stack, dag(GOOD_SQL));
    expect((await waitForRunEnd(target.stack, jobId, (await triggerRun(target.stack, jobId)).id, 60_000)).status).toBe(
      'succeeded',
    );
    expect((await update(pipelineId, { name, dag: dag(BAD_SQL) })).validation.errors).toEqual([unknownColumn]);

    const scheduler = target.stack.processes.find((p) => p.name === 'scheduler')!;
    await stopProcess(scheduler.child);
    const started = performance.now();
    const answered = await validate(pipelineId);
    const elapsedMs = performance.now() - started;
    expect(answered).toMatchObject({
      valid: true,
      errors: [],
      warnings: [
        expect.objectContaining({ code: 'schemas_unchecked', message: expect.stringContaining('not checked') }),
      ],
    });
    // The catalog waits about 500 ms for the scheduler, far inside the gateway's 5 s.
    expect(elapsedMs).toBeLessThan(2_500);
    const saved = await update(pipelineId, { name, dag: dag(BAD_SQL) });
    expect(saved.validation.warnings).toEqual([expect.objectContaining({ code: 'schemas_unchecked' })]);
  }, 120_000);
});
