import { beforeAll, describe, expect, it } from '@jest/globals';
import { useSchedulerSuite } from './support/scheduler-suite.js';
import { REDIS_URL } from './support/redis.js';
import { Worker } from 'bullmq';
import { QUEUES, type Run } from '@conduit/contracts';
import { bullPrefix } from '@conduit/service-kit';
import { RunReaper } from '../src/reaper/run-reaper.js';
import { SCHEDULER_SETTINGS } from '../src/common/tokens.js';
import type { SchedulerSettings } from '../src/scheduler-settings.js';
import { newTenant } from './support/db.js';
import { getRun, runInStatus, runStartedReport, triggerQueuedRun } from './support/runs.js';
import { waitFor } from '@conduit/testing';

const SILENCE_MS = 400;
// Well past what the other tests take between a trigger and their last sweep.
const QUEUED_TIMEOUT_MS = 3000;
// The reaper's timer is too slow to fire during the suite: each test sweeps by hand, when it is ready.
const suite = useSchedulerSuite({
  scheduler: {
    runSilenceMs: SILENCE_MS,
    // The tests below that need the grace set it themselves.
    stalledGraceMs: 1,
    queuedRunTimeoutMs: QUEUED_TIMEOUT_MS,
    reaperIntervalMs: 600_000,
    background: { ticks: false },
  },
  queues: [QUEUES.runs, QUEUES.eventsScheduler],
});
const { caller, prefix } = suite;
const runsQueue = suite.queue(QUEUES.runs);
const reportsQueue = suite.queue(QUEUES.eventsScheduler);
let reaper: RunReaper;

beforeAll(() => {
  reaper = suite.scheduler.app.get(RunReaper);
});

// A fixed wait on purpose: the run's silence lapsing is what the reaper is tested on.
const silence = () => new Promise((r) => setTimeout(r, SILENCE_MS + 100));

/** Waits out the run's silence, then until its job's lock (never renewed by a dying executor) has expired. */
async function lockExpired(run: Run): Promise<void> {
  await silence();
  const lockKey = `${runsQueue.toKey(run.id)}:lock`;
  const redis = await runsQueue.backend.client;
  await waitFor(async () => (await redis.get(lockKey)) === null, { what: 'the lock expired' });
}

/**
 * An executor that takes the run's job, reports it started and goes silent: it never renews its lock, so the lock
 * expires, and it runs no stalled check. Jobs of earlier tests may still wait in the queue: it takes them too, and
 * holds only this run's.
 */
async function dyingExecutor(tenant: string, run: Run): Promise<{ release: () => void; executor: Worker }> {
  let release = () => undefined as void;
  const executor = new Worker(
    QUEUES.runs,
    (job) => (job.id === run.id ? new Promise<void>((r) => (release = r)) : Promise.resolve()),
    {
      connection: { url: REDIS_URL, maxRetriesPerRequest: null },
      prefix: bullPrefix(prefix),
      concurrency: 10,
      lockDuration: 300,
      lockRenewTime: 600_000,
      stalledInterval: 600_000,
    },
  );
  await waitFor(async () => (await runsQueue.getJob(run.id))?.getState().then((s) => s === 'active'), {
    what: 'the executor took the job',
  });
  await reportsQueue.add('run.started', runStartedReport(tenant, run, 'dying'));
  await waitFor(async () => (await getRun(caller, tenant, run)).status === 'running', { what: 'running' });
  return { release: () => release(), executor };
}

describe('the reaper', () => {
  it('re-enqueues a queued run whose queue job was lost, once, then fails it', async () => {
    const t = newTenant();
    const run = await triggerQueuedRun(suite, t);
    await runsQueue.remove(run.id);
    await silence();
    const first = await reaper.sweep();
    expect(first?.requeued).toContain(run.id);
    await waitFor(() => runsQueue.getJob(run.id), { what: 'the command enqueued again' });
    expect((await getRun(caller, t, run)).status).toBe('queued');

    await runsQueue.remove(run.id);
    await silence();
    const second = await reaper.sweep();
    expect(second?.failed).toContain(run.id);
    const failed = await getRun(caller, t, run);
    expect(failed.status).toBe('failed');
    expect(failed.error?.code).toBe('run_lost');
  });

  it('leaves a silent queued run alone while its job waits for an executor', async () => {
    const t = newTenant();
    const run = await triggerQueuedRun(suite, t);
    await silence();
    const result = await reaper.sweep();
    expect(result?.failed).not.toContain(run.id);
    expect(result?.requeued).not.toContain(run.id);
    expect((await getRun(caller, t, run)).status).toBe('queued');
  });

  it('fails a run no executor took within the queued timeout while none runs, removing its job', async () => {
    const t = newTenant();
    const run = await triggerQueuedRun(suite, t);
    expect(await runsQueue.getJob(run.id)).toBeDefined();
    // A connected executor that has not taken the job (busy with others): a backlog, not a run nobody will take.
    const busy = new Worker(QUEUES.runs, async () => undefined, {
      connection: { url: REDIS_URL, maxRetriesPerRequest: null },
      prefix: bullPrefix(prefix),
      autorun: false,
    });
    try {
      await waitFor(async () => (await runsQueue.getWorkersCount()) > 0, { what: 'the worker connected' });
      await new Promise((r) => setTimeout(r, QUEUED_TIMEOUT_MS));
      expect((await reaper.sweep())?.failed).not.toContain(run.id);
      expect((await getRun(caller, t, run)).status).toBe('queued');
    } finally {
      await busy.close();
    }
    await waitFor(async () => (await reaper.sweep())?.failed.includes(run.id), {
      what: 'the queued timeout to lapse',
      timeoutMs: QUEUED_TIMEOUT_MS + 5000,
    });
    const failed = await getRun(caller, t, run);
    expect(failed).toMatchObject({
      status: 'failed',
      error: {
        code: 'queue_timeout',
        message: 'no executor took the run within 3 s of its trigger: none is running',
      },
    });
    expect(Date.parse(failed.finished_at!) - Date.parse(failed.queued_at)).toBeGreaterThanOrEqual(QUEUED_TIMEOUT_MS);
    expect(await runsQueue.getJob(run.id)).toBeUndefined();
  });

  it('fails a running run whose executor went silent and whose queue job is gone', async () => {
    const t = newTenant();
    const run = await triggerQueuedRun(suite, t);
    await reportsQueue.add('run.started', runStartedReport(t, run, 'gone'));
    await waitFor(async () => (await getRun(caller, t, run)).status === 'running', { what: 'running' });
    await runsQueue.remove(run.id);
    // Not yet silent long enough: nothing happens.
    expect((await reaper.sweep())?.failed).not.toContain(run.id);
    await silence();
    expect((await reaper.sweep())?.failed).toContain(run.id);
    const failed = await getRun(caller, t, run);
    expect(failed).toMatchObject({ status: 'failed', error: { code: 'executor_lost' } });
    expect(failed.error?.message).toContain('the executor running it stopped responding');
    expect(failed.nodes.every((n) => n.status === 'canceled')).toBe(true);
  });

  it('fails a running run whose executor died while no other executor is left to notice', async () => {
    const t = newTenant();
    const run = await triggerQueuedRun(suite, t);
    // An executor takes the job and goes silent: it never renews its lock, so the lock expires, and no live
    // worker runs BullMQ's stalled check.
    const { release, executor } = await dyingExecutor(t, run);
    try {
      await silence();
      await waitFor(async () => (await reaper.sweep())?.failed.includes(run.id), { what: 'the lock expired' });
      const failed = await getRun(caller, t, run);
      expect(failed).toMatchObject({ status: 'failed', error: { code: 'executor_lost' } });
      expect(failed.error?.message).toContain('no executor holds it any more');
    } finally {
      release();
      await executor.close();
    }
  });

  it("leaves a dead executor's run to the executors still running for the stalled grace, then fails it", async () => {
    const settings = suite.scheduler.app.get<SchedulerSettings>(SCHEDULER_SETTINGS);
    const t = newTenant();
    const run = await triggerQueuedRun(suite, t);
    // Its connection stays: an executor listens on the queue, as live ones would.
    const { release, executor } = await dyingExecutor(t, run);
    try {
      await lockExpired(run);
      // Within the grace a live executor's stalled check would take the job back: the reaper leaves the run.
      settings.stalledGraceMs = 60_000;
      expect((await reaper.sweep())?.failed).not.toContain(run.id);
      expect((await getRun(caller, t, run)).status).toBe('running');
      // Past it, nobody did: failed.
      settings.stalledGraceMs = 1;
      expect((await reaper.sweep())?.failed).toContain(run.id);
      expect(await getRun(caller, t, run)).toMatchObject({ status: 'failed', error: { code: 'executor_lost' } });
    } finally {
      settings.stalledGraceMs = 1;
      release();
      await executor.close();
    }
  });

  it("fails a dead executor's run within the grace when no executor is left to take it over", async () => {
    const settings = suite.scheduler.app.get<SchedulerSettings>(SCHEDULER_SETTINGS);
    const t = newTenant();
    const run = await triggerQueuedRun(suite, t);
    const { release, executor } = await dyingExecutor(t, run);
    try {
      await lockExpired(run);
      settings.stalledGraceMs = 60_000;
      // Gone without finishing its job (forced): the job stays active without a lock, and nobody listens.
      await executor.close(true);
      await waitFor(async () => (await runsQueue.getWorkersCount()) === 0, { what: 'no executor listening' });
      expect((await reaper.sweep())?.failed).toContain(run.id);
    } finally {
      settings.stalledGraceMs = 1;
      release();
      await executor.close();
    }
  });

  it('fails a run as soon as its queue job fails (QueueEvents), stalls read as a lost executor', async () => {
    const t = newTenant();
    const crashing = await triggerQueuedRun(suite, t);
    const stalled = await triggerQueuedRun(suite, t);
    const executor = new Worker(
      QUEUES.runs,
      async (job) => {
        throw new Error(job.id === stalled.id ? 'job stalled more than allowable limit' : 'out of memory');
      },
      { connection: { url: REDIS_URL, maxRetriesPerRequest: null }, prefix: bullPrefix(prefix) },
    );
    try {
      const a = await runInStatus(caller, t, crashing, 'failed');
      expect(a.error).toEqual({ code: 'executor_failed', message: 'the executor failed the run: out of memory' });
      const b = await runInStatus(caller, t, stalled, 'failed');
      expect(b.error?.code).toBe('executor_lost');
      expect(b.error?.message).toContain('the executor running it stopped responding');
    } finally {
      await executor.close();
    }
  });
});
