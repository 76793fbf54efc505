import type { Run } from '@conduit/contracts';
import { branch, chain, dagNodes, linearDag, rulesDecision } from '@conduit/testing';
import { call, expectProblem } from './support/client.js';
import {
  RFC3339_MS,
  createPipelineAndJob,
  nodeOf,
  triggerRun,
  waitFor,
  waitForRun,
  waitForRunEnd,
} from './support/helpers.js';
import { useTargetStack } from './support/target-stack.js';

// Runs end to end (api.md, Resources > Run): every service its own process, the pipelines read and write the
// stack's own PostgreSQL database through a postgres connector, and the test checks the tables with SQL.
// Polling runs adds up to many requests a minute; the rate limit has its own tests.
const target = useTargetStack({ env: { RATE_LIMIT_PER_MINUTE: '100000' }, timeoutMs: 60_000 });

async function countRows(table: string): Promise<number> {
  const { rows } = await target.db.query<{ n: string }>(`select count(*) as n from ${table}`);
  return Number(rows[0]!.n);
}

const { source, transform, sink } = dagNodes(() => target.connectorId);
const NODE_FIELDS = [
  'attempts',
  'columns',
  'error',
  'finished_at',
  'id',
  'output',
  'rows_in',
  'rows_out',
  'started_at',
  'status',
  'type',
];

describe('a postgres -> SQL transform -> postgres upsert pipeline over 100,000 rows', () => {
  // The filter and the computed column, written once for DuckDB (the transform) and once for PostgreSQL (the check).
  // numeric arrives in DuckDB as text (the pg driver's string), hence the casts.
  const TRANSFORM_SQL =
    'select id, cast(amount as decimal(12,2)) as amount, category, cast(amount as decimal(12,2)) * qty as total ' +
    "from extract where category <> 'c' and cast(amount as decimal(12,2)) >= 100";
  const EXPECTED_SQL =
    "select id, amount, category, amount * qty as total from orders_src where category <> 'c' and amount >= 100";

  beforeAll(async () => {
    await target.db.query(
      `create table orders_src (id integer primary key, amount numeric(10,2) not null, qty integer not null, category text not null)`,
    );
    await target.db.query(
      `insert into orders_src select i, (i % 1000) + 0.25, 1 + i % 7, (array['a','b','c'])[1 + i % 3] from generate_series(1, 100000) as i`,
    );
    await target.db.query(
      `create table orders_out (id integer primary key, amount numeric(12,2), category text, total numeric(14,2))`,
    );
  });

  async function expectTargetMatchesSource(): Promise<number> {
    const expected = await countRows(`(${EXPECTED_SQL}) e`);
    expect(await countRows('orders_out')).toBe(expected);
    // Both directions of EXCEPT empty: the same rows with the same values, nothing missing, nothing extra.
    expect(await countRows(`(select id, amount, category, total from orders_out except ${EXPECTED_SQL}) x`)).toBe(0);
    expect(await countRows(`(${EXPECTED_SQL} except select id, amount, category, total from orders_out) x`)).toBe(0);
    return expected;
  }

  it('succeeds, writes exactly the expected rows and shows every node with its row counts; a second run leaves no duplicates', async () => {
    const dag = linearDag(
      source('extract', { table: 'orders_src' }),
      transform('clean', TRANSFORM_SQL),
      sink('load', 'orders_out', { mode: 'upsert', key: ['id'] }),
    );
    const { jobId, pipelineId } = await createPipelineAndJob(target.stack, dag);
    const queued = await triggerRun(target.stack, jobId);
    expect(queued).toMatchObject({
      job_id: jobId,
      pipeline_id: pipelineId,
      pipeline_version: 1,
      trigger: 'manual',
      attempt: 1,
    });
    const run = await waitForRunEnd(target.stack, jobId, queued.id, 90_000);
    expect(run.status).toBe('succeeded');
    expect(run.error).toBeNull();

    const expected = await expectTargetMatchesSource();
    expect(expected).toBeGreaterThan(50_000);
    expect(run.stats).toEqual({ rows_read: 100_000, rows_written: expected });
    expect(run.nodes.map((n) => [n.id, n.type, n.status])).toEqual([
      ['extract', 'source', 'succeeded'],
      ['clean', 'transform', 'succeeded'],
      ['load', 'sink', 'succeeded'],
    ]);
    expect(nodeOf(run, 'extract')).toMatchObject({ rows_in: 0, rows_out: 100_000, attempts: 1, error: null });
    expect(nodeOf(run, 'clean')).toMatchObject({ rows_in: 100_000, rows_out: expected, attempts: 1, error: null });
    expect(nodeOf(run, 'load')).toMatchObject({ rows_in: expected, rows_out: expected, attempts: 1, error: null });
    for (const node of run.nodes) {
      expect(Object.keys(node).sort()).toEqual(NODE_FIELDS);
      expect(node.started_at).toMatch(RFC3339_MS);
      expect(node.finished_at).toMatch(RFC3339_MS);
    }
    expect(run.started_at).toMatch(RFC3339_MS);
    expect(run.finished_at).toMatch(RFC3339_MS);
    expect(run.duration_ms).toBe(Date.parse(run.finished_at!) - Date.parse(run.started_at!));

    // Change one source row that passes the filter; the second run updates it in place and adds nothing.
    expect((await target.db.query(`select amount::text, total::text from orders_out where id = 100`)).rows).toEqual([
      { amount: '100.25', total: '300.75' },
    ]);
    await target.db.query(`update orders_src set amount = 999.75, qty = 2 where id = 100`);
    const second = await waitForRunEnd(target.stack, jobId, (await triggerRun(target.stack, jobId)).id, 90_000);
    expect(second.status).toBe('succeeded');
    expect(await expectTargetMatchesSource()).toBe(expected);
    const { rows } = await target.db.query(`select amount::text, total::text from orders_out where id = 100`);
    expect(rows).toEqual([{ amount: '999.75', total: '1999.50' }]);
  });
});

describe('a decision by rules', () => {
  it('runs the chosen branch; the branch not chosen and its descendants are skipped; the run succeeds', async () => {
    await target.db.query(`create table big_out (n integer); create table small_out (n integer)`);
    const dag = {
      nodes: [
        source('numbers', { query: 'select i as n from generate_series(1, 50) as i' }),
        rulesDecision('route', {
          choices: ['big', 'small'],
          default: 'small',
          rules: [{ choice: 'big', sql: 'select count(*) >= 10 from numbers' }],
        }),
        transform('big_rows', 'select n from route'),
        sink('big_sink', 'big_out'),
        transform('small_rows', 'select n from route'),
        sink('small_sink', 'small_out'),
      ],
      edges: [
        ...chain('numbers', 'route'),
        ...branch('route', 'big', 'big_rows', 'big_sink'),
        ...branch('route', 'small', 'small_rows', 'small_sink'),
      ],
    };
    const { jobId } = await createPipelineAndJob(target.stack, dag);
    const run = await waitForRunEnd(target.stack, jobId, (await triggerRun(target.stack, jobId)).id);
    expect(run.status).toBe('succeeded');
    expect(nodeOf(run, 'route')).toMatchObject({
      status: 'succeeded',
      rows_in: 50,
      rows_out: 50,
      output: { choice: 'big', reason: expect.any(String) },
    });
    expect(nodeOf(run, 'big_rows').status).toBe('succeeded');
    expect(nodeOf(run, 'big_sink')).toMatchObject({ status: 'succeeded', rows_out: 50 });
    expect(nodeOf(run, 'small_rows')).toMatchObject({ status: 'skipped', rows_out: 0 });
    expect(nodeOf(run, 'small_sink')).toMatchObject({ status: 'skipped', rows_out: 0 });
    expect(await countRows('big_out')).toBe(50);
    expect(await countRows('small_out')).toBe(0);
  });
});

describe('a node that fails', () => {
  async function runToEnd(dag: Record<string, unknown>): Promise<Run> {
    const { jobId } = await createPipelineAndJob(target.stack, dag);
    return waitForRunEnd(target.stack, jobId, (await triggerRun(target.stack, jobId)).id);
  }

  it('bad SQL in a transform fails the run with the node id and DuckDB message; the nodes below are skipped', async () => {
    await target.db.query(`create table bad_transform_out (n integer)`);
    const run = await runToEnd(
      linearDag(
        source('numbers', { query: 'select 1 as n' }),
        transform('broken', 'select no_such_column from numbers'),
        sink('after', 'bad_transform_out'),
      ),
    );
    expect(run.status).toBe('failed');
    expect(run.error).toMatchObject({ node_id: 'broken', message: expect.stringMatching(/no_such_column/) });
    expect(run.error!.message).toMatch(/Binder Error/);
    expect(nodeOf(run, 'numbers').status).toBe('succeeded');
    expect(nodeOf(run, 'broken')).toMatchObject({
      status: 'failed',
      error: { message: expect.stringMatching(/no_such_column/) },
    });
    expect(nodeOf(run, 'after').status).toBe('skipped');
    expect(await countRows('bad_transform_out')).toBe(0);
  });

  it("bad SQL on the database fails the run with the node id and PostgreSQL's message", async () => {
    await target.db.query(`create table bad_sql_out (n integer)`);
    const run = await runToEnd(
      linearDag(source('numbers', { query: 'select 1 as n from no_such_table' }), sink('after', 'bad_sql_out')),
    );
    expect(run.status).toBe('failed');
    expect(run.error).toMatchObject({
      node_id: 'numbers',
      message: expect.stringContaining('relation "no_such_table" does not exist'),
    });
    expect(nodeOf(run, 'after').status).toBe('skipped');
    expect(await countRows('bad_sql_out')).toBe(0);
  });

  it('a node over its timeout_seconds fails after its retries, each attempt stopped at the timeout', async () => {
    const started = Date.now();
    const run = await runToEnd(
      linearDag(
        source('stuck', { query: 'select 1 as n from (select pg_sleep(20)) as s', timeout_seconds: 1, retries: 1 }),
        transform('after', 'select n from stuck'),
      ),
    );
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(run.status).toBe('failed');
    expect(run.error).toMatchObject({ node_id: 'stuck', message: expect.stringMatching(/timed out/) });
    expect(nodeOf(run, 'stuck')).toMatchObject({ status: 'failed', attempts: 2 });
    expect(nodeOf(run, 'after').status).toBe('skipped');
    // Each attempt's query was cancelled on the server, not left sleeping.
    await waitFor(async () => (await driverSessions()) === 0, {
      what: 'the timed-out queries to end',
      timeoutMs: 5000,
      intervalMs: 100,
    });
  });

  it('takes timeout_seconds and retries set on the node itself, beside its config (api.md)', async () => {
    const stuck = {
      ...source('stuck', { query: 'select 1 as n from (select pg_sleep(20)) as s' }),
      timeout_seconds: 1,
      retries: 1,
    };
    const run = await runToEnd(linearDag(stuck, transform('after', 'select n from stuck')));
    expect(run.status).toBe('failed');
    expect(run.error).toMatchObject({ node_id: 'stuck', message: expect.stringMatching(/timed out/) });
    expect(nodeOf(run, 'stuck')).toMatchObject({ status: 'failed', attempts: 2 });
  });
});

/** Sessions the connector drivers hold open on the stack's database (they all say application_name 'conduit'). */
async function driverSessions(): Promise<number> {
  const { rows } = await target.db.query<{ n: string }>(
    `select count(*) as n from pg_stat_activity where datname = current_database() and application_name = 'conduit'`,
  );
  return Number(rows[0]!.n);
}

describe('cancel', () => {
  it('cancels a long run while its sink writes: canceled at once, drivers stopped within 2 s, no row written after', async () => {
    await target.db.query(`create table cancel_out (n bigint, h text)`);
    const dag = linearDag(
      source('many', { query: 'select i as n, md5(i::text) as h from generate_series(1, 1000000) as i' }),
      sink('slow_sink', 'cancel_out'),
    );
    const { jobId } = await createPipelineAndJob(target.stack, dag);
    const queued = await triggerRun(target.stack, jobId);
    await waitForRun(
      target.stack,
      jobId,
      queued.id,
      (r) => nodeOf(r, 'slow_sink').status === 'running' || (r.status !== 'running' && r.status !== 'queued'),
      60_000,
    );

    const asked = Date.now();
    const canceled = await call<Run>(target.stack, 'POST', `/v2/jobs/${jobId}/runs/${queued.id}/cancel`);
    expect(canceled.status).toBe(200);
    expect(canceled.body).toMatchObject({
      id: queued.id,
      status: 'canceled',
      finished_at: expect.stringMatching(RFC3339_MS),
    });
    expect(nodeOf(canceled.body, 'slow_sink').status).toBe('canceled');
    expect(nodeOf(canceled.body, 'many').status).toBe('succeeded');
    expect((await call<Run>(target.stack, 'GET', `/v2/jobs/${jobId}/runs/${queued.id}`)).body.status).toBe('canceled');
    // The executor stops its drivers: their database sessions end within two seconds of the cancel.
    await waitFor(async () => (await driverSessions()) === 0, {
      what: 'the drivers to close their sessions',
      timeoutMs: 2000,
      intervalMs: 50,
    });
    expect(Date.now() - asked).toBeLessThan(2000);

    const rightAfter = await countRows('cancel_out');
    // A window in which a late COPY would land rows: proves none does.
    await new Promise((r) => setTimeout(r, 3000));
    expect(await countRows('cancel_out')).toBe(rightAfter);
    // A COPY cut off rolls back whole: nothing of the canceled run stays.
    expect(rightAfter).toBe(0);
    expect((await call<Run>(target.stack, 'GET', `/v2/jobs/${jobId}/runs/${queued.id}`)).body.status).toBe('canceled');
  });

  it('cancel of a finished run is a 409 run_finished', async () => {
    const { jobId } = await createPipelineAndJob(target.stack, quickDag());
    const run = await waitForRunEnd(target.stack, jobId, (await triggerRun(target.stack, jobId)).id);
    expect(run.status).toBe('succeeded');
    expectProblem(
      await call<Run>(target.stack, 'POST', `/v2/jobs/${jobId}/runs/${run.id}/cancel`),
      409,
      'run_finished',
    );
    expect((await call<Run>(target.stack, 'GET', `/v2/jobs/${jobId}/runs/${run.id}`)).body.status).toBe('succeeded');
  });
});

/** One row through a transform: the smallest valid pipeline. */
function quickDag(): Record<string, unknown> {
  return linearDag(source('one', { query: 'select 1 as n' }), transform('same', 'select n from one'));
}

/** A pipeline whose source holds the run for `seconds` in PostgreSQL. */
function sleepyDag(seconds: number): Record<string, unknown> {
  return linearDag(
    source('sleepy', { query: `select 1 as n from (select pg_sleep(${seconds})) as s` }),
    transform('after', 'select n from sleepy'),
  );
}

describe('Retry Run', () => {
  it('runs an ended run again as a new run (trigger retry, its parameters); 409 while it has not ended', async () => {
    const { jobId } = await createPipelineAndJob(target.stack, sleepyDag(30), { concurrency_policy: 'allow' });
    const first = await triggerRun(target.stack, jobId, { parameters: { since_days: 3 } });
    expectProblem(
      await call<Run>(target.stack, 'POST', `/v2/jobs/${jobId}/runs/${first.id}/retry`),
      409,
      'run_in_progress',
    );
    expect((await call<Run>(target.stack, 'POST', `/v2/jobs/${jobId}/runs/${first.id}/cancel`)).status).toBe(200);

    const retried = await call<Run>(target.stack, 'POST', `/v2/jobs/${jobId}/runs/${first.id}/retry`);
    expect(retried.status).toBe(202);
    expect(retried.body).toMatchObject({ trigger: 'retry', status: 'queued', parameters: first.parameters });
    expect(retried.body.parameters).toMatchObject({ since_days: 3 });
    expect(retried.body.id).not.toBe(first.id);
    expect(retried.headers.get('location')).toBe(`/v2/jobs/${jobId}/runs/${retried.body.id}`);
    const listed = await call<{ data: Run[] }>(target.stack, 'GET', `/v2/jobs/${jobId}/runs`);
    expect(listed.body.data.map((r) => [r.id, r.trigger])).toEqual([
      [retried.body.id, 'retry'],
      [first.id, 'manual'],
    ]);
    expect((await call<Run>(target.stack, 'POST', `/v2/jobs/${jobId}/runs/${retried.body.id}/cancel`)).status).toBe(
      200,
    );
    expectProblem(
      await call<Run>(target.stack, 'POST', `/v2/jobs/${jobId}/runs/run_01JD3V6Y9ZQ8W1S3X5C7E9G2HK/retry`),
      404,
      'not_found',
    );
  });
});

describe('concurrency policies', () => {
  it('forbid: a second trigger while a run is active is a 409 run_in_progress; once it is over, a trigger runs', async () => {
    const { jobId } = await createPipelineAndJob(target.stack, sleepyDag(30), { concurrency_policy: 'forbid' });
    const first = await triggerRun(target.stack, jobId);
    expectProblem(await call<Run>(target.stack, 'POST', `/v2/jobs/${jobId}/run`), 409, 'run_in_progress');
    await waitForRun(target.stack, jobId, first.id, (r) => r.status === 'running');
    expectProblem(await call<Run>(target.stack, 'POST', `/v2/jobs/${jobId}/run`), 409, 'run_in_progress');
    const runs = await call<{ data: Run[] }>(target.stack, 'GET', `/v2/jobs/${jobId}/runs`);
    expect(runs.body.data.map((r) => r.id)).toEqual([first.id]);

    // Canceling frees the slot.
    expect((await call<Run>(target.stack, 'POST', `/v2/jobs/${jobId}/runs/${first.id}/cancel`)).status).toBe(200);
    const second = await triggerRun(target.stack, jobId);
    expect(second.id).not.toBe(first.id);
    expect((await call<Run>(target.stack, 'POST', `/v2/jobs/${jobId}/runs/${second.id}/cancel`)).status).toBe(200);
  });

  it('replace: a second trigger cancels the active run and runs', async () => {
    const { jobId } = await createPipelineAndJob(target.stack, sleepyDag(1), { concurrency_policy: 'replace' });
    const first = await triggerRun(target.stack, jobId);
    await waitForRun(target.stack, jobId, first.id, (r) => r.status === 'running');
    const second = await triggerRun(target.stack, jobId);
    expect((await call<Run>(target.stack, 'GET', `/v2/jobs/${jobId}/runs/${first.id}`)).body.status).toBe('canceled');
    expect((await waitForRunEnd(target.stack, jobId, second.id)).status).toBe('succeeded');
    // The replaced run stays canceled: its executor's late report does not revive it.
    expect((await call<Run>(target.stack, 'GET', `/v2/jobs/${jobId}/runs/${first.id}`)).body).toMatchObject({
      status: 'canceled',
      error: null,
    });
  });

  it('allow: runs of one job overlap', async () => {
    const { jobId } = await createPipelineAndJob(target.stack, sleepyDag(1), { concurrency_policy: 'allow' });
    const first = await triggerRun(target.stack, jobId);
    const second = await triggerRun(target.stack, jobId);
    const ends = await Promise.all([
      waitForRunEnd(target.stack, jobId, first.id),
      waitForRunEnd(target.stack, jobId, second.id),
    ]);
    expect(ends.map((r) => r.status)).toEqual(['succeeded', 'succeeded']);
  });
});
