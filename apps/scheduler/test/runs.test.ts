import { describe, expect, it, jest } from '@jest/globals';
import { useSchedulerSuite } from './support/scheduler-suite.js';
import { REDIS_URL } from './support/redis.js';
import type { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import {
  QUEUES,
  RUN_CANCEL_CHANNEL,
  runCommandSchema,
  runEventSchema,
  type Job,
  type Page,
  type Run,
  type RunReport,
} from '@conduit/contracts';
import { WEBHOOK_TENANTS_KEY, WebhookTenants, newId, unbatchedJobs } from '@conduit/service-kit';
import { newTenant } from './support/db.js';
import { getRun, runInStatus } from './support/runs.js';
import { TriggeredJobs } from '../src/runs/triggered-jobs.js';
import { waitFor } from '@conduit/testing';

const suite = useSchedulerSuite({
  // The set of tenants with webhooks trusted at once (not 30 s after the connection opened) for the test that fills it.
  scheduler: { background: { ticks: false }, webhookTenantsDistrustMs: 0 },
  queues: [QUEUES.runs, QUEUES.eventsScheduler, QUEUES.eventsMonitoring, QUEUES.eventsWebhooks],
});
const { caller, store, prefix } = suite;
const runsQueue = suite.queue(QUEUES.runs);
const reportsQueue = suite.queue(QUEUES.eventsScheduler);
const monitoringQueue = suite.queue(QUEUES.eventsMonitoring);
const webhooksQueue = suite.queue(QUEUES.eventsWebhooks);

async function newJob(tenant: string, extra: Record<string, unknown> = {}): Promise<Job> {
  const pipeline = store.add(tenant);
  return caller.ok<Job>(tenant, 'scheduler.jobs.create', {
    body: { name: `job ${newId('job')}`, pipeline_id: pipeline.id, parameters: { region: 'eu', limit: 10 }, ...extra },
  });
}

/** A report as the tests write it, without what `report` fills in; per kind, so each keeps its own fields. */
type ReportInput<R = RunReport> = R extends RunReport
  ? Omit<R, 'event_id' | 'at' | 'epoch'> & { event_id?: string; epoch?: number }
  : never;
type Finished = Extract<RunReport, { type: 'run.finished' }>;

let reportSeq = 0;
async function report(r: ReportInput): Promise<string> {
  const event_id = r.event_id ?? newId('event');
  // Epoch 0: these runs were never claimed (the claim is tested in claims.test.ts).
  await reportsQueue.add(
    r.type,
    { epoch: 0, ...r, event_id, at: new Date(Date.now() + reportSeq++).toISOString() },
    { jobId: `${event_id}-${reportSeq}` },
  );
  return event_id;
}

/** The executor's report that the run's attempt succeeded, with its row counts and final nodes. */
function reportSucceeded(
  base: { run_id: string; tenant_id: string; attempt: number; epoch?: number },
  stats: Finished['stats'],
  nodes: Finished['nodes'],
): Promise<string> {
  return report({ ...base, type: 'run.finished', status: 'succeeded', error: null, stats, nodes });
}

async function eventsOf(queue: Queue, runId: string): Promise<string[]> {
  const jobs = unbatchedJobs(await queue.getJobs(['waiting', 'delayed', 'active', 'completed', 'failed']));
  return jobs
    .filter((j) => (j.data as { run?: { id?: string } }).run?.id === runId)
    .sort((a, b) => a.timestamp - b.timestamp || String(a.id).localeCompare(String(b.id)))
    .map((j) => runEventSchema.parse(j.data).type);
}

/** Spies on Trigger Run's reads of jobs, running `afterRead` after each: another replica's update landing there. */
function afterEachJobRead(afterRead: () => Promise<void>) {
  // eslint-disable-next-line @typescript-eslint/unbound-method -- called below with the instance as `this`
  const read = TriggeredJobs.prototype.read;
  return jest.spyOn(TriggeredJobs.prototype, 'read').mockImplementation(async function (
    this: TriggeredJobs,
    tenantId: string,
    jobId: string,
  ) {
    const job = await read.call(this, tenantId, jobId);
    await afterRead();
    return job;
  });
}

describe('Trigger Run', () => {
  it('queues a run with the pipeline snapshot, enqueues its command (job id = run id) and announces run.queued', async () => {
    const t = newTenant();
    const job = await newJob(t);
    const run = await caller.ok<Run>(t, 'scheduler.runs.trigger', {
      job_id: job.id,
      body: { parameters: { limit: 99 } },
    });
    expect(run).toMatchObject({
      job_id: job.id,
      pipeline_id: job.pipeline_id,
      pipeline_version: 1,
      status: 'queued',
      trigger: 'manual',
      attempt: 1,
      started_at: null,
      duration_ms: null,
    });
    expect(run.parameters).toEqual({ region: 'eu', limit: 99 });
    expect(run.nodes.map((n) => [n.id, n.status])).toEqual([
      ['orders', 'pending'],
      ['to_dw', 'pending'],
    ]);

    const queued = await waitFor(() => runsQueue.getJob(run.id), { what: 'the run command on the runs queue' });
    const command = runCommandSchema.parse(queued.data);
    expect(command).toMatchObject({
      run_id: run.id,
      tenant_id: t,
      job_id: job.id,
      trigger: 'manual',
      parameters: { region: 'eu', limit: 99 },
      // The connectors' versions as the snapshot gave them: executors holding them ask the catalog for nothing.
      connectors: [
        { id: 'con_x', version: 3 },
        { id: 'con_y', version: 1 },
      ],
    });
    expect((command.dag as { nodes: unknown[] }).nodes).toHaveLength(2);
    expect(queued.opts.removeOnComplete).toBeDefined();
    await waitFor(async () => (await eventsOf(monitoringQueue, run.id)).includes('run.queued'), {
      what: 'run.queued on the monitoring queue',
    });
    // No webhook can subscribe to run.queued: the dispatcher is not sent it (its queue's adds are of the same turn).
    expect(await eventsOf(webhooksQueue, run.id)).not.toContain('run.queued');

    const page = await caller.ok<Page<Run>>(t, 'scheduler.runs.list', { job_id: job.id, query: { limit: 10 } });
    expect(page.data.map((r) => r.id)).toEqual([run.id]);
    const got = await caller.ok<Job>(t, 'scheduler.jobs.get', { id: job.id });
    expect(got.last_run).toMatchObject({ id: run.id, status: 'queued', trigger: 'manual' });
  });

  it('refuses a second run under forbid (409 run_in_progress), and allows one under allow', async () => {
    const t = newTenant();
    const job = await newJob(t);
    await caller.ok<Run>(t, 'scheduler.runs.trigger', { job_id: job.id, body: {} });
    const second = await caller.call<Run>(t, 'scheduler.runs.trigger', { job_id: job.id, body: {} });
    expect(second).toMatchObject({ ok: false, error: { code: 'run_in_progress' } });

    const allowed = await newJob(t, { concurrency_policy: 'allow' });
    await caller.ok<Run>(t, 'scheduler.runs.trigger', { job_id: allowed.id, body: {} });
    await caller.ok<Run>(t, 'scheduler.runs.trigger', { job_id: allowed.id, body: {} });
    const page = await caller.ok<Page<Run>>(t, 'scheduler.runs.list', {
      job_id: allowed.id,
      query: { limit: 10, status: 'queued' },
    });
    expect(page.data).toHaveLength(2);
  });

  it('cancels the active run first under replace', async () => {
    const t = newTenant();
    const job = await newJob(t, { concurrency_policy: 'replace' });
    const first = await caller.ok<Run>(t, 'scheduler.runs.trigger', { job_id: job.id, body: {} });
    await waitFor(() => runsQueue.getJob(first.id), { what: 'the first command enqueued' });
    const second = await caller.ok<Run>(t, 'scheduler.runs.trigger', { job_id: job.id, body: {} });
    expect(second.status).toBe('queued');
    const old = await getRun(caller, t, first);
    expect(old.status).toBe('canceled');
    expect(old.finished_at).not.toBeNull();
    expect(old.nodes.every((n) => n.status === 'canceled')).toBe(true);
    // The waiting queue job of the replaced run is gone: no executor will take it.
    await waitFor(async () => (await runsQueue.getJob(first.id)) === undefined, {
      what: 'the replaced run removed from the queue',
    });
  });

  it("triggers an unchanged allow job without reading it, and takes the job's change made anywhere", async () => {
    const t = newTenant();
    const job = await newJob(t, { concurrency_policy: 'allow' });
    const jobs = suite.scheduler.app.get(TriggeredJobs);
    const reads = jest.spyOn(jobs, 'read');
    try {
      const first = await caller.ok<Run>(t, 'scheduler.runs.trigger', { job_id: job.id, body: {} });
      expect(first).toMatchObject({ pipeline_id: job.pipeline_id, parameters: { region: 'eu', limit: 10 } });
      const again = await caller.ok<Run>(t, 'scheduler.runs.trigger', {
        job_id: job.id,
        body: { parameters: { n: 2 } },
      });
      expect(again).toMatchObject({ parameters: { region: 'eu', limit: 10, n: 2 } });
      // The first trigger read the job; the second took its held copy.
      expect(reads).toHaveBeenCalledTimes(1);
      // Held for its tenant only: another tenant's trigger of the same id reads, and finds nothing.
      const foreign = await caller.call<Run>(newTenant(), 'scheduler.runs.trigger', { job_id: job.id, body: {} });
      expect(foreign).toMatchObject({ ok: false, error: { code: 'not_found' } });
      expect(reads).toHaveBeenCalledTimes(2);

      // Changed as another replica's update does (a new revision): another pipeline and other parameters.
      const other = store.add(t);
      const changed = `UPDATE jobs SET parameters = $2, pipeline_id = $3, revision = revision + 1 WHERE id = $1`;
      await suite.ds.query(changed, [job.id, { region: 'us' }, other.id]);
      const second = await caller.ok<Run>(t, 'scheduler.runs.trigger', { job_id: job.id, body: {} });
      expect(second).toMatchObject({ pipeline_id: other.id, parameters: { region: 'us' } });
      // Another policy since: the held copy's `allow` is not acted on.
      await suite.ds.query(`UPDATE jobs SET concurrency_policy = 'forbid', revision = revision + 1 WHERE id = $1`, [
        job.id,
      ]);
      const refused = await caller.call<Run>(t, 'scheduler.runs.trigger', { job_id: job.id, body: {} });
      expect(refused).toMatchObject({ ok: false, error: { code: 'run_in_progress' } });
      // Gone with the job.
      await suite.ds.query(`UPDATE jobs SET concurrency_policy = 'allow', revision = revision + 1 WHERE id = $1`, [
        job.id,
      ]);
      await caller.ok<Run>(t, 'scheduler.runs.trigger', { job_id: job.id, body: {} });
      await suite.ds.query(`DELETE FROM jobs WHERE id = $1`, [job.id]);
      const gone = await caller.call<Run>(t, 'scheduler.runs.trigger', { job_id: job.id, body: {} });
      expect(gone).toMatchObject({ ok: false, error: { code: 'not_found' } });
    } finally {
      reads.mockRestore();
    }
  });

  it('makes the run of the pipeline the job names when its row is held, should the job be repointed after it was read', async () => {
    for (const policy of ['forbid', 'allow'] as const) {
      const t = newTenant();
      const job = await newJob(t, { concurrency_policy: policy });
      const other = store.add(t);
      // Another replica's update lands between this trigger's read of the job and its hold of the row; for `allow`,
      // the one-statement insert finds the revision moved and the trigger takes the transaction.
      let repointed = false;
      const reads = afterEachJobRead(async () => {
        if (repointed) return;
        repointed = true;
        await suite.ds.query(
          `UPDATE jobs SET parameters = $2, pipeline_id = $3, revision = revision + 1 WHERE id = $1`,
          [job.id, { region: 'us' }, other.id],
        );
      });
      try {
        const run = await caller.ok<Run>(t, 'scheduler.runs.trigger', { job_id: job.id, body: {} });
        // Never the first pipeline's DAG with the job's new parameters: the job as it is, read again.
        expect(run).toMatchObject({ pipeline_id: other.id, parameters: { region: 'us' } });
        expect(reads).toHaveBeenCalledTimes(2);
      } finally {
        reads.mockRestore();
      }
    }
  });

  it('gives up with a 503 and makes no run when the job is repointed under each of three attempts', async () => {
    const t = newTenant();
    const job = await newJob(t, { concurrency_policy: 'forbid' });
    const pipelines = [job.pipeline_id, store.add(t).id];
    let repoints = 0;
    const reads = afterEachJobRead(async () => {
      repoints += 1;
      await suite.ds.query(`UPDATE jobs SET pipeline_id = $2, revision = revision + 1 WHERE id = $1`, [
        job.id,
        pipelines[repoints % 2],
      ]);
    });
    try {
      const refused = await caller.call<Run>(t, 'scheduler.runs.trigger', { job_id: job.id, body: {} });
      expect(refused).toMatchObject({ ok: false, error: { code: 'service_unavailable' } });
      expect(reads).toHaveBeenCalledTimes(3);
      const runs = await suite.ds.query<{ count: number }[]>(
        `SELECT count(*)::int AS count FROM runs WHERE job_id = $1`,
        [job.id],
      );
      expect(runs).toEqual([{ count: 0 }]);
    } finally {
      reads.mockRestore();
    }
  });

  it('asks the catalog once a trigger for the pipeline of a held allow job that no longer validates', async () => {
    const t = newTenant();
    const job = await newJob(t, { concurrency_policy: 'allow' });
    await caller.ok<Run>(t, 'scheduler.runs.trigger', { job_id: job.id, body: {} });
    store.add(t, { id: job.pipeline_id, valid: false, errors: [{ code: 'cycle', message: 'a -> b -> a' }] });
    await store.changed(t);
    const asked = store.asked.get(job.pipeline_id) ?? 0;
    for (let i = 0; i < 2; i += 1) {
      const refused = await caller.call<Run>(t, 'scheduler.runs.trigger', { job_id: job.id, body: {} });
      expect(refused).toMatchObject({ ok: false, error: { code: 'pipeline_invalid' } });
    }
    expect((store.asked.get(job.pipeline_id) ?? 0) - asked).toBe(2);
  });

  it('answers pipeline_invalid for a pipeline that does not validate, naming its errors', async () => {
    const t = newTenant();
    const pipeline = store.add(t, { valid: false, errors: [{ code: 'cycle', message: 'a -> b -> a' }] });
    const job = await caller.ok<Job>(t, 'scheduler.jobs.create', {
      body: { name: 'broken', pipeline_id: pipeline.id },
    });
    const reply = await caller.call<Run>(t, 'scheduler.runs.trigger', { job_id: job.id, body: {} });
    expect(reply.ok).toBe(false);
    if (!reply.ok) {
      expect(reply.error.code).toBe('pipeline_invalid');
      expect(reply.error.detail).toContain('cycle: a -> b -> a');
    }
  });

  it('answers not_found for an unknown, malformed or foreign job or run', async () => {
    const t = newTenant();
    const job = await newJob(t);
    const run = await caller.ok<Run>(t, 'scheduler.runs.trigger', { job_id: job.id, body: {} });
    const other = await newJob(t);
    for (const [tenant, data] of [
      [newTenant(), { job_id: job.id, run_id: run.id }],
      [t, { job_id: other.id, run_id: run.id }],
      [t, { job_id: job.id, run_id: 'run_nope' }],
      [t, { job_id: job.id, run_id: newId('run') }],
    ] as const) {
      expect(await caller.call(tenant, 'scheduler.runs.get', data)).toMatchObject({
        ok: false,
        error: { code: 'not_found' },
      });
    }
    expect(await caller.call(newTenant(), 'scheduler.runs.trigger', { job_id: job.id, body: {} })).toMatchObject({
      ok: false,
      error: { code: 'not_found' },
    });
    expect(await caller.call(t, 'scheduler.runs.trigger', { job_id: 'job_bad', body: {} })).toMatchObject({
      ok: false,
      error: { code: 'not_found' },
    });
  });
});

describe('the run state machine, fed by executor reports', () => {
  it('moves queued -> running -> succeeded, updates nodes, and announces each transition once', async () => {
    const t = newTenant();
    const job = await newJob(t);
    const run = await caller.ok<Run>(t, 'scheduler.runs.trigger', { job_id: job.id, body: {} });
    const base = { run_id: run.id, tenant_id: t, attempt: 1 };

    const started = await report({ ...base, type: 'run.started', executor_id: 'exec-1' });
    await waitFor(async () => (await getRun(caller, t, run)).status === 'running', { what: 'running' });
    // The same report again (same event id) changes nothing.
    await report({ ...base, type: 'run.started', executor_id: 'exec-1', event_id: started });

    const node = {
      id: 'orders',
      type: 'source',
      status: 'running' as const,
      started_at: new Date().toISOString(),
      finished_at: null,
      attempts: 1,
      rows_in: 0,
      rows_out: 5,
      output: null,
      error: null,
    };
    await report({ ...base, type: 'run.node', node });
    await waitFor(
      async () => (await getRun(caller, t, run)).nodes.find((n) => n.id === 'orders')?.status === 'running',
      {
        what: 'the node running',
      },
    );

    const done = (id: string) => ({
      id,
      type: id === 'orders' ? 'source' : 'sink',
      status: 'succeeded' as const,
      started_at: node.started_at,
      finished_at: new Date().toISOString(),
      attempts: 1,
      rows_in: 10,
      rows_out: 10,
      output: null,
      error: null,
    });
    await reportSucceeded(base, { rows_read: 10, rows_written: 10 }, [done('orders'), done('to_dw')]);
    const finished = await runInStatus(caller, t, run, 'succeeded');
    expect(finished.stats).toEqual({ rows_read: 10, rows_written: 10 });
    expect(finished.duration_ms).toBeGreaterThanOrEqual(0);
    expect(finished.nodes.map((n) => n.status)).toEqual(['succeeded', 'succeeded']);

    // Stale: a report for a final run is ignored.
    await report({
      ...base,
      type: 'run.finished',
      status: 'failed',
      error: { message: 'late' },
      stats: { rows_read: 0, rows_written: 0 },
      nodes: [],
    });
    await waitFor(async () => (await eventsOf(monitoringQueue, run.id)).length >= 3, { what: 'events published' });
    // Give the stale report its chance to be (wrongly) applied before checking it was not.
    await waitFor(async () => (await reportsQueue.getJobCounts('waiting', 'active')).waiting === 0, {
      what: 'the stale report consumed',
    });
    await waitFor(async () => (await reportsQueue.getJobCounts('active')).active === 0, {
      what: 'the stale report finished',
    });
    expect((await getRun(caller, t, run)).status).toBe('succeeded');
    expect(await eventsOf(monitoringQueue, run.id)).toEqual(['run.queued', 'run.started', 'run.succeeded']);
    expect(await eventsOf(webhooksQueue, run.id)).toEqual(['run.started', 'run.succeeded']);
  });

  it("sends a run's webhook events to the dispatcher only for tenants with webhooks, once the set is complete", async () => {
    const withWebhook = newTenant();
    const without = newTenant();
    const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
    // What the dispatcher writes (webhook-tenants-refresh.ts): the set complete, one of the two tenants in it.
    const tenants = new WebhookTenants(redis, prefix, { distrustMs: 0 });
    const finish = async (t: string) => {
      const run = await caller.ok<Run>(t, 'scheduler.runs.trigger', { job_id: (await newJob(t)).id, body: {} });
      const base = { run_id: run.id, tenant_id: t, attempt: 1 };
      await report({ ...base, type: 'run.started', executor_id: 'exec-1' });
      await reportSucceeded(base, { rows_read: 0, rows_written: 0 }, []);
      await waitFor(async () => (await eventsOf(monitoringQueue, run.id)).includes('run.succeeded'), {
        what: 'the run ended and its events published',
      });
      return run;
    };
    try {
      await tenants.admit(withWebhook);
      // Not complete yet (Redis lost the set, or the dispatcher has not written it): every tenant's events go.
      const early = await finish(without);
      expect(await eventsOf(webhooksQueue, early.id)).toEqual(['run.started', 'run.succeeded']);

      await tenants.complete(async () => []);
      const skipped = await finish(without);
      const sent = await finish(withWebhook);
      expect(await eventsOf(monitoringQueue, skipped.id)).toEqual(['run.queued', 'run.started', 'run.succeeded']);
      expect(await eventsOf(webhooksQueue, skipped.id)).toEqual([]);
      expect(await eventsOf(webhooksQueue, sent.id)).toEqual(['run.started', 'run.succeeded']);
    } finally {
      // The other tests' tenants have no place in the set: without it, every event goes again.
      await redis.del(`${prefix}${WEBHOOK_TENANTS_KEY}`);
      redis.disconnect();
    }
  });

  it("applies a burst of one run's reports in order: the latest state of every node, each event once", async () => {
    const t = newTenant();
    const job = await newJob(t);
    const run = await caller.ok<Run>(t, 'scheduler.runs.trigger', { job_id: job.id, body: {} });
    const base = { run_id: run.id, tenant_id: t, attempt: 1, epoch: 0 };
    const at = new Date().toISOString();
    const node = (i: number, status: 'running' | 'succeeded') => ({
      id: `n${i}`,
      type: 'transform',
      status,
      started_at: at,
      finished_at: status === 'running' ? null : at,
      attempts: 1,
      rows_in: i,
      rows_out: i,
      output: null,
      error: null,
    });
    const burst: RunReport[] = [{ ...base, type: 'run.started', executor_id: 'exec-1', event_id: newId('event'), at }];
    for (let i = 0; i < 40; i++) {
      for (const status of ['running', 'succeeded'] as const)
        burst.push({ ...base, type: 'run.node', node: node(i, status), event_id: newId('event'), at });
    }
    burst.push({ ...burst[3]! }); // a duplicate: n1 running again, with the same event id
    // Added at once, so the worker takes many together and applies them in batches.
    await reportsQueue.addBulk(burst.map((r, i) => ({ name: r.type, data: r, opts: { jobId: `${r.event_id}-${i}` } })));
    const nodesDone = await waitFor(
      async () => {
        const r = await getRun(caller, t, run);
        return r.nodes.filter((n) => n.id.startsWith('n') && n.status === 'succeeded').length === 40 ? r : undefined;
      },
      { what: 'every node succeeded' },
    );
    expect(nodesDone.status).toBe('running');
    await waitFor(
      async () => {
        const counts = await reportsQueue.getJobCounts('waiting', 'active');
        return counts.waiting === 0 && counts.active === 0;
      },
      { what: 'the burst consumed' },
    );
    const settled = await getRun(caller, t, run);
    expect(settled.nodes.filter((n) => n.id.startsWith('n')).map((n) => [n.id, n.status, n.rows_out])).toEqual(
      Array.from({ length: 40 }, (_, i) => [`n${i}`, 'succeeded', i]),
    );

    await reportSucceeded(base, { rows_read: 1, rows_written: 0 }, settled.nodes);
    await waitFor(async () => (await getRun(caller, t, run)).status === 'succeeded', { what: 'succeeded' });
    await waitFor(async () => (await eventsOf(monitoringQueue, run.id)).length >= 3, { what: 'events published' });
    expect(await eventsOf(monitoringQueue, run.id)).toEqual(['run.queued', 'run.started', 'run.succeeded']);
  });

  it("stores each node's columns and answers them in Get Run Status and List Runs (null until a node has output)", async () => {
    const t = newTenant();
    const job = await newJob(t);
    const run = await caller.ok<Run>(t, 'scheduler.runs.trigger', { job_id: job.id, body: {} });
    expect(run.nodes.map((n) => n.columns)).toEqual([null, null]);
    const base = { run_id: run.id, tenant_id: t, attempt: 1 };
    await report({ ...base, type: 'run.started', executor_id: 'exec-1' });
    const at = new Date().toISOString();
    const columns = [
      { name: 'id', type: 'INTEGER', source_type: 'int4' },
      { name: 'amount', type: 'DECIMAL(12,2)', source_type: 'numeric(12,2)' },
    ];
    const node = (id: string, status: 'running' | 'succeeded', extra: Record<string, unknown>) => ({
      id,
      type: id === 'orders' ? 'source' : 'sink',
      status,
      started_at: at,
      finished_at: status === 'running' ? null : at,
      attempts: 1,
      rows_in: 0,
      rows_out: 2,
      output: null,
      error: null,
      ...extra,
    });
    await report({ ...base, type: 'run.node', node: node('orders', 'succeeded', { columns }) });
    // An executor older than the field sends no columns: the node is answered with null.
    await report({ ...base, type: 'run.node', node: node('to_dw', 'running', {}) });
    const reported = await waitFor(
      async () => {
        const r = await getRun(caller, t, run);
        return r.nodes.find((n) => n.id === 'to_dw')?.status === 'running' && r.nodes[0]?.status === 'succeeded'
          ? r
          : undefined;
      },
      { what: 'the nodes reported' },
    );
    expect(reported.nodes.map((n) => [n.id, n.columns])).toEqual([
      ['orders', columns],
      ['to_dw', null],
    ]);
    // The answer keeps the documented field order, columns last.
    expect(Object.keys(reported.nodes[0]!)).toEqual([
      'id',
      'type',
      'status',
      'started_at',
      'finished_at',
      'attempts',
      'rows_in',
      'rows_out',
      'output',
      'error',
      'columns',
    ]);
    expect(Object.keys(reported.nodes[0]!.columns![0]!)).toEqual(['name', 'type', 'source_type']);

    const wrote = [
      { name: 'id', type: 'INTEGER' },
      { name: 'amount', type: 'DECIMAL(12,2)' },
    ];
    await reportSucceeded(base, { rows_read: 2, rows_written: 2 }, [
      node('orders', 'succeeded', {}),
      node('to_dw', 'succeeded', { columns: wrote }),
    ]);
    const finished = await runInStatus(caller, t, run, 'succeeded');
    expect(finished.nodes.map((n) => [n.id, n.columns])).toEqual([
      ['orders', columns],
      ['to_dw', wrote],
    ]);
    const listed = await caller.ok<Page<Run>>(t, 'scheduler.runs.list', { job_id: job.id, query: {} });
    expect(listed.data.find((r) => r.id === run.id)?.nodes.map((n) => n.columns)).toEqual([columns, wrote]);
  });

  it('ignores reports of an older attempt and takes over with a newer one', async () => {
    const t = newTenant();
    const job = await newJob(t);
    const run = await caller.ok<Run>(t, 'scheduler.runs.trigger', { job_id: job.id, body: {} });
    await report({ run_id: run.id, tenant_id: t, attempt: 2, type: 'run.started', executor_id: 'exec-2' });
    await waitFor(
      async () => {
        const r = await getRun(caller, t, run);
        return r.status === 'running' && r.attempt === 2;
      },
      { what: 'attempt 2 running' },
    );
    await report({
      run_id: run.id,
      tenant_id: t,
      attempt: 1,
      type: 'run.finished',
      status: 'failed',
      error: { message: 'old executor' },
      stats: { rows_read: 0, rows_written: 0 },
      nodes: [],
    });
    await report({
      run_id: run.id,
      tenant_id: t,
      attempt: 2,
      type: 'run.finished',
      status: 'failed',
      error: { message: 'boom', node_id: 'to_dw' },
      stats: { rows_read: 1, rows_written: 0 },
      nodes: [],
    });
    const failed = await runInStatus(caller, t, run, 'failed');
    expect(failed.error).toEqual({ message: 'boom', node_id: 'to_dw' });
  });
});

describe('Cancel', () => {
  it('cancels a running run at once, tells the executor over pub/sub, and refuses a second cancel (409 run_finished)', async () => {
    const t = newTenant();
    const job = await newJob(t);
    const run = await caller.ok<Run>(t, 'scheduler.runs.trigger', { job_id: job.id, body: {} });
    await report({ run_id: run.id, tenant_id: t, attempt: 1, type: 'run.started', executor_id: 'exec-1' });
    await waitFor(async () => (await getRun(caller, t, run)).status === 'running', { what: 'running' });

    const sub = new Redis(REDIS_URL);
    const heard: string[] = [];
    await sub.subscribe(`${prefix}${RUN_CANCEL_CHANNEL}`);
    sub.on('message', (_channel, message) => heard.push(message));
    try {
      const canceled = await caller.ok<Run>(t, 'scheduler.runs.cancel', { job_id: job.id, run_id: run.id });
      expect(canceled.status).toBe('canceled');
      expect(canceled.finished_at).not.toBeNull();
      expect(canceled.nodes.every((n) => n.status === 'canceled')).toBe(true);
      await waitFor(async () => heard.includes(JSON.stringify({ run_id: run.id })), { what: 'the cancel message' });
    } finally {
      sub.disconnect();
    }
    expect(await caller.call(t, 'scheduler.runs.cancel', { job_id: job.id, run_id: run.id })).toMatchObject({
      ok: false,
      error: { code: 'run_finished' },
    });
    // The slot is free: forbid lets a new run in.
    await caller.ok<Run>(t, 'scheduler.runs.trigger', { job_id: job.id, body: {} });
    await waitFor(async () => (await eventsOf(monitoringQueue, run.id)).includes('run.canceled'), {
      what: 'run.canceled announced',
    });
  });
});
