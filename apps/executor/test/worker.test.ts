// The executor end to end over real queues: a run command on `runs`, reports on events.scheduler, logs on logs.
import type pg from 'pg';
import { RUN_CANCEL_CHANNEL, type RunNode } from '@conduit/contracts';
import { newId } from '@conduit/service-kit';
import type { ExecutorRuntime } from '../src/runs/executor-runtime.js';
import type { CatalogStubData } from './support/catalog-stub.js';
import { stubRun } from './support/scheduler-stub.js';
import { encryptSecrets } from '@conduit/connectors';
import { SecretBox } from '@conduit/secrets';
import { startExecutor, TEST_SECRETS_KEY } from './support/executor.js';
import { connectorConfig, count, uniqueSchema, dropSchema, openSchema } from './support/postgres.js';
import { leftOutOf, logBatchesOf, nodeReportsOf, reportsOf } from './support/queues.js';
import { runNode } from './support/run-nodes.js';
import { startWorkerSuite, type WorkerSuite } from './support/worker-suite.js';
import { branch, chain, dagNodes, linearDag, rulesDecision, waitFor } from '@conduit/testing';

const TENANT = 'tnt_executor_test';
const schema = uniqueSchema();
/** A config as the catalog stores it for `connectorId` of TENANT. */
function sealedFor(connectorId: string, password: string): Record<string, unknown> {
  return encryptSecrets('postgres', { ...connectorConfig(schema), password }, new SecretBox(TEST_SECRETS_KEY), {
    tenantId: TENANT,
    connectorId,
  });
}
const stub: CatalogStubData = {
  tenantId: TENANT,
  // As the catalog answers them: secrets sealed as stored. con_clear breaks that rule.
  connectors: [
    { id: 'con_pg', type: 'postgres', config: sealedFor('con_pg', 'sealed-pw-1') },
    { id: 'con_clear', type: 'postgres', config: { ...connectorConfig(schema), password: 'clear-pw-1' } },
    // con_pg's stored secret copied into another connector's row: bound to con_pg, it does not open here.
    { id: 'con_copied', type: 'postgres', config: sealedFor('con_pg', 'copied-pw-1') },
  ],
  requests: [],
};
let db: pg.Client;
let suite: WorkerSuite;
let runtime: ExecutorRuntime;

beforeAll(async () => {
  db = await openSchema(schema);
  await db.query(`create table ${schema}.items (id integer primary key, label text)`);
  await db.query(`insert into ${schema}.items select g, 'item ' || g from generate_series(1, 1000) g`);
  await db.query(`create table ${schema}.items_copy (id integer primary key, label text)`);
  suite = await startWorkerSuite(stub);
  runtime = await startExecutor(suite.prefix);
});

afterAll(async () => {
  await runtime?.stop(1000);
  await suite?.close();
  await dropSchema(db, schema);
});

const { source, transform, sink, sql } = dagNodes('con_pg');
const copyDag = linearDag(
  source('items', { table: 'items' }),
  transform('even', 'select id, upper(label) as label from items where id % 2 = 0'),
  sink('out', 'items_copy', { mode: 'upsert', key: ['id'] }),
);

it("claims the run, runs it, and reports node changes and finished with the claim's epoch, and log batches", async () => {
  const runId = newId('run');
  await suite.enqueue(runId, TENANT, copyDag);
  const end = await suite.finished(runId);
  expect(end).toMatchObject({
    status: 'succeeded',
    error: null,
    attempt: 1,
    tenant_id: TENANT,
    stats: { rows_read: 1000, rows_written: 500 },
  });
  expect(end.nodes.map((n) => [n.id, n.status, n.rows_out])).toEqual([
    ['items', 'succeeded', 1000],
    ['even', 'succeeded', 500],
    ['out', 'succeeded', 500],
  ]);
  expect(await count(db, `${schema}.items_copy`)).toBe(500);

  const reports = await reportsOf(suite.queues.reports, runId);
  expect(suite.fencing.claims.filter((c) => c.run_id === runId)).toEqual([
    { run_id: runId, attempt: 1, executor_id: runtime.executorId, answer: { granted: true, epoch: 1, nodes: [] } },
  ]);
  // The claim started the run: every report carries its epoch.
  expect(reports.every((r) => r.epoch === 1 && r.type !== 'run.started')).toBe(true);
  expect(reports.at(-1)!.type).toBe('run.finished');
  // Each node's reports in its order; a start or an end may be left out (run-reporter.ts), never a node's order.
  const nodeReports = nodeReportsOf(reports);
  expect(Object.keys(nodeReports).every((id) => ['items', 'even', 'out'].includes(id))).toBe(true);
  for (const id of ['items', 'even', 'out'])
    expect(nodeReports[id] ?? []).toEqual(leftOutOf(['running', 'succeeded'], nodeReports[id]));
  expect(new Set(reports.map((r) => r.event_id)).size).toBe(reports.length);

  // The catalog was asked with the run's tenant, read scope and the run id as request id.
  expect(stub.requests).toContainEqual({
    ctx: { tenant_id: TENANT, scopes: ['read'], request_id: runId },
    data: { ids: ['con_pg'] },
  });

  let lines: string[] = [];
  await waitFor(
    async () => {
      const batches = await logBatchesOf(suite.queues.logs, runId);
      const all = batches.flatMap((b) => b.lines);
      expect(all.map((l) => l.n)).toEqual(all.map((_, i) => i));
      lines = all.map((l) => `${l.node_id ?? '-'} ${l.level} ${l.message}`);
      return lines.some((l) => l.startsWith('- info run succeeded'));
    },
    { what: 'the final log line', timeoutMs: 5000 },
  );
  expect(lines).toContain('items info read 1000 rows');
  expect(lines).toContain('out info wrote 500 of 500 rows to items_copy (upsert)');
  expect(lines.join('\n')).not.toMatch(/password/i);
  expect(await suite.queues.runs.getJobState(runId)).toBe('completed');
});

it("fails a run whose connector is not the tenant's, naming the node", async () => {
  const runId = newId('run');
  await suite.enqueue(runId, 'tnt_other', copyDag);
  const end = await suite.finished(runId);
  expect(end.status).toBe('failed');
  expect(end.error).toMatchObject({
    node_id: 'items',
    message: 'node "items" failed: connector "con_pg" does not exist',
  });
  expect(end.nodes.map((n) => n.status)).toEqual(['failed', 'skipped', 'skipped']);
});

it.each([
  {
    secret: 'arrived in clear',
    connectorId: 'con_clear',
    password: 'clear-pw-1',
    error: { code: 'internal', message: 'connector con_clear: secret field "password" arrived in clear' },
  },
  {
    secret: 'was sealed for another connector',
    connectorId: 'con_copied',
    password: 'copied-pw-1',
    error: {
      code: 'config_error',
      message: expect.stringMatching(
        /^connector con_copied: secret field "password" could not be decrypted: .*send the secret again/,
      ),
    },
  },
])(
  'fails a run whose connector secret $secret with $error.code, naming connector and field, not the value',
  async (c) => {
    const runId = newId('run');
    await suite.enqueue(runId, TENANT, linearDag(dagNodes(c.connectorId).sql('q', 'select 1')));
    const end = await suite.finished(runId);
    expect(end).toMatchObject({ status: 'failed', error: c.error });
    expect(JSON.stringify(end)).not.toContain(c.password);
  },
);

it('cancels a running run within a second of the cancel message', async () => {
  const runId = newId('run');
  const dag = linearDag(sql('nap', 'select pg_sleep(30)'));
  await suite.enqueue(runId, TENANT, dag);
  await suite.started(runId, { what: 'nap running', timeoutMs: 10_000 });
  const sentAt = Date.now();
  await suite.redis.publish(`${suite.prefix}${RUN_CANCEL_CHANNEL}`, JSON.stringify({ run_id: runId }));
  const end = await suite.finished(runId);
  expect(Date.parse(end.at) - sentAt).toBeLessThan(1000);
  expect(end).toMatchObject({ status: 'canceled', error: null });
  expect(end.nodes[0]).toMatchObject({ id: 'nap', status: 'canceled' });
  const { rows } = await db.query<{ n: number }>(
    `select count(*)::int as n from pg_stat_activity where query = 'select pg_sleep(30)'`,
  );
  expect(rows[0]?.n).toBe(0);
});

it('hands active runs back to the queue when draining outlasts the grace period', async () => {
  const runId = newId('run');
  const dag = linearDag(sql('nap', 'select pg_sleep(30)'));
  await suite.enqueue(runId, TENANT, dag);
  await waitFor(async () => runtime.activeRuns.includes(runId), { what: 'the run to be active', timeoutMs: 10_000 });
  await runtime.stop(300);
  expect(['wait', 'waiting']).toContain(await suite.queues.runs.getJobState(runId));
  expect((await reportsOf(suite.queues.reports, runId)).some((r) => r.type === 'run.finished')).toBe(false);
  // Another executor takes it from there; cancel it so the suite ends quickly.
  runtime = await startExecutor(suite.prefix);
  await waitFor(async () => runtime.activeRuns.includes(runId), {
    what: 'the run to be taken again',
    timeoutMs: 10_000,
  });
  await suite.redis.publish(`${suite.prefix}${RUN_CANCEL_CHANNEL}`, JSON.stringify({ run_id: runId }));
  const end = await suite.finished(runId);
  // The draining executor released its lease: the next one claimed the run at once, as attempt 2.
  expect(end).toMatchObject({ status: 'canceled', attempt: 2 });
});

describe('fencing (issue 16)', () => {
  it('completes the queue job of a run that is over without running anything or reporting', async () => {
    const runId = newId('run');
    stubRun(suite.fencing, runId, { status: 'failed', epoch: 2 });
    const dag = linearDag(sql('mark', "insert into items_copy values (-1, 'must not run')"));
    await suite.enqueue(runId, TENANT, dag);
    await waitFor(async () => (await suite.queues.runs.getJobState(runId)) === 'completed', {
      what: 'the job completed',
      timeoutMs: 10_000,
    });
    expect(suite.fencing.claims.filter((c) => c.run_id === runId).map((c) => c.answer)).toEqual([
      { granted: false, reason: 'finished', status: 'failed', retry_in_ms: null },
    ]);
    expect(await reportsOf(suite.queues.reports, runId)).toEqual([]);
    const { rows } = await db.query<{ n: number }>(`select count(*)::int as n from ${schema}.items_copy where id = -1`);
    expect(rows[0]?.n).toBe(0);
  });

  it('gives a run up after three claims answered with a reply it cannot take, instead of claiming for ever', async () => {
    const runId = newId('run');
    // A recorded node whose id is longer than any the contract allows: every answer to the claim is malformed.
    const at = new Date().toISOString();
    stubRun(suite.fencing, runId, {
      nodes: [runNode('n'.repeat(300), 'source', 'succeeded', { started_at: at, finished_at: at })],
    });
    await suite.enqueue(runId, TENANT, linearDag(sql('mark', "insert into items_copy values (-2, 'must not run')")));
    await waitFor(async () => (await suite.queues.runs.getJobState(runId)) === 'failed', {
      what: 'the job failed',
      timeoutMs: 20_000,
    });
    const job = await suite.queues.runs.getJob(runId);
    expect(job?.failedReason).toMatch(/claim failed 3 times in a row/);
    expect(suite.fencing.claims.filter((c) => c.run_id === runId)).toHaveLength(3);
    expect(await reportsOf(suite.queues.reports, runId)).toEqual([]);
    const { rows } = await db.query<{ n: number }>(`select count(*)::int as n from ${schema}.items_copy where id = -2`);
    expect(rows[0]?.n).toBe(0);
  });

  it('stops a run at once, with no final report, when the scheduler refuses its lease', async () => {
    const runId = newId('run');
    const dag = linearDag(
      sql('nap', 'select pg_sleep(30)'),
      sql('after', "insert into items_copy values (-2, 'must not run')"),
    );
    await suite.enqueue(runId, TENANT, dag);
    await waitFor(async () => runtime.activeRuns.includes(runId), { what: 'the run to be active', timeoutMs: 10_000 });
    // The reaper (or a takeover) moved the run's epoch on.
    const run = suite.fencing.runs.get(runId)!;
    run.epoch += 1;
    const movedAt = Date.now();
    await waitFor(async () => !runtime.activeRuns.includes(runId), { what: 'the run to stop', timeoutMs: 5000 });
    // Renewals come every third of the lease (1 s here): stopped within about one of them.
    expect(Date.now() - movedAt).toBeLessThan(1500);
    expect(suite.fencing.renewals.filter((r) => r.run_id === runId).at(-1)).toEqual({
      run_id: runId,
      epoch: 1,
      renewed: false,
    });
    expect((await reportsOf(suite.queues.reports, runId)).some((r) => r.type === 'run.finished')).toBe(false);
    const { rows } = await db.query(
      `select (select count(*)::int from ${schema}.items_copy where id = -2) as marks, (select count(*)::int from pg_stat_activity where query = 'select pg_sleep(30)') as naps`,
    );
    expect(rows[0]).toEqual({ marks: 0, naps: 0 });
  });

  it('resumes a run taken over: a committed sink is not run again, its upstream is rebuilt only for a node still to run', async () => {
    const runId = newId('run');
    await db.query(`create table ${schema}.later_copy (id integer primary key, label text)`);
    await db.query(`truncate ${schema}.items_copy`);
    const dag = {
      nodes: [source('items', { table: 'items' }), sink('out', 'items_copy'), sink('later', 'later_copy')],
      edges: [
        { from: 'items', to: 'out' },
        { from: 'items', to: 'later' },
      ],
    };
    const at = new Date().toISOString();
    const done = (id: string, type: string) =>
      runNode(id, type, 'succeeded', { started_at: at, finished_at: at, rows_in: 1000, rows_out: 1000 });
    // The dead execution read items and committed `out`, then died while `later` ran.
    stubRun(suite.fencing, runId, {
      status: 'running',
      epoch: 1,
      holder: 'dead#1',
      leaseUntil: 0,
      nodes: [
        done('items', 'source'),
        done('out', 'sink'),
        { ...done('later', 'sink'), status: 'running', finished_at: null, rows_out: 0 },
      ],
    });
    await suite.enqueue(runId, TENANT, dag);
    const end = await suite.finished(runId);
    expect(end).toMatchObject({ status: 'succeeded', epoch: 2, stats: { rows_read: 1000, rows_written: 2000 } });
    expect(end.nodes.map((n) => [n.id, n.status, n.attempts])).toEqual([
      ['items', 'succeeded', 2],
      ['out', 'succeeded', 1],
      ['later', 'succeeded', 2],
    ]);
    const nodeReports = nodeReportsOf(await reportsOf(suite.queues.reports, runId), true);
    expect(Object.keys(nodeReports).every((id) => ['items', 'later'].includes(id))).toBe(true);
    for (const id of ['items', 'later'])
      expect(nodeReports[id] ?? []).toEqual(leftOutOf(['running:2', 'succeeded:2'], nodeReports[id]));
    // `out` committed in the dead execution (here: not at all, so a repeat would show) and was not written again.
    expect(await count(db, `${schema}.items_copy`)).toBe(0);
    expect(await count(db, `${schema}.later_copy`)).toBe(1000);
  });

  it("rebuilds a decision's output for a node still to run, keeping its recorded choice", async () => {
    const runId = newId('run');
    await db.query(`create table ${schema}.small_copy (id integer primary key, label text)`);
    await db.query(`create table ${schema}.big_copy (id integer primary key, label text)`);
    const dag = {
      nodes: [
        source('items', { table: 'items' }),
        // The rule would choose big now: the recorded choice, small, must stand.
        rulesDecision('route', {
          choices: ['big', 'small'],
          default: 'small',
          rules: [{ choice: 'big', sql: 'select count(*) > 10 from items' }],
        }),
        sink('to_big', 'big_copy'),
        sink('to_small', 'small_copy'),
      ],
      edges: [...chain('items', 'route'), ...branch('route', 'big', 'to_big'), ...branch('route', 'small', 'to_small')],
    };
    const at = new Date().toISOString();
    const node = (id: string, type: string, status: RunNode['status'], output: RunNode['output'] = null) =>
      runNode(id, type, status, { started_at: at, finished_at: at, rows_out: 1000, output });
    stubRun(suite.fencing, runId, {
      status: 'running',
      epoch: 3,
      holder: 'dead#2',
      leaseUntil: 0,
      nodes: [
        node('items', 'source', 'succeeded'),
        node('route', 'decision', 'succeeded', { choice: 'small', reason: 'recorded' }),
        node('to_big', 'sink', 'skipped', { reason: 'no input was chosen or ran' }),
        node('to_small', 'sink', 'running'),
      ],
    });
    await suite.enqueue(runId, TENANT, dag);
    const end = await suite.finished(runId);
    expect(end).toMatchObject({ status: 'succeeded', epoch: 4 });
    expect(end.nodes.map((n) => [n.id, n.status])).toEqual([
      ['items', 'succeeded'],
      ['route', 'succeeded'],
      ['to_big', 'skipped'],
      ['to_small', 'succeeded'],
    ]);
    expect(end.nodes.find((n) => n.id === 'route')!.output).toEqual({ choice: 'small', reason: 'recorded' });
    expect(await count(db, `${schema}.small_copy`)).toBe(1000);
    expect(await count(db, `${schema}.big_copy`)).toBe(0);
  });
});
