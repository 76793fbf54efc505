import { describe, expect, it } from '@jest/globals';
import { waitFor } from '@conduit/testing';
import { useSchedulerSuite } from './support/scheduler-suite.js';
import { REDIS_URL } from './support/redis.js';
import { QUEUES, type Job, type Run } from '@conduit/contracts';
import { OutboxRelay, QueueProducers, createLogger, unbatchedJobs, type QueueProducer } from '@conduit/service-kit';
import { schedulerOutbox } from '../src/outbox/scheduler-outbox.js';
import { schedulerSettings } from '../src/scheduler-settings.js';
import { newTenant } from './support/db.js';
import { startScheduler, type SchedulerUnderTest } from './support/scheduler-app.js';
import { SCHEDULER_PRODUCES, drainOutbox } from './support/outbox.js';
import { outboxPublished } from './support/runs.js';

// No scheduler of the suite's: each test starts the replicas it crashes.
const suite = useSchedulerSuite({ scheduler: false, queues: [QUEUES.runs, QUEUES.eventsMonitoring] });
const { caller, store, prefix } = suite;
const runsQueue = suite.queue(QUEUES.runs);
const monitoringQueue = suite.queue(QUEUES.eventsMonitoring);

describe('the transactional outbox', () => {
  it('loses nothing when the process dies between the commit and the enqueue', async () => {
    // A scheduler whose relay never runs: the trigger commits, then the process "dies" before publishing.
    const crashed: SchedulerUnderTest = await startScheduler(suite.ds, prefix, {
      background: { relay: false, ticks: false, reaper: false },
    });
    const t = newTenant();
    let run: Run;
    try {
      const job = await caller.ok<Job>(t, 'scheduler.jobs.create', {
        body: { name: 'survivor', pipeline_id: store.add(t).id },
      });
      run = await caller.ok<Run>(t, 'scheduler.runs.trigger', { job_id: job.id, body: {} });
    } finally {
      await crashed.close();
    }
    expect(await runsQueue.getJob(run.id)).toBeUndefined();
    const pending = await suite.ds.query<{ kind: string }[]>(
      `SELECT kind FROM outbox WHERE run_id = $1 AND published_at IS NULL ORDER BY id`,
      [run.id],
    );
    expect(pending.map((p) => p.kind)).toEqual(['run_command', 'run_event']);

    // A relay that throws on its first enqueue publishes nothing and marks nothing.
    const queues = QueueProducers.open({ redisUrl: REDIS_URL, redisPrefix: prefix }, SCHEDULER_PRODUCES);
    const outbox = schedulerOutbox(schedulerSettings({ redisUrl: REDIS_URL, redisPrefix: prefix }));
    const logger = createLogger({ service: 't', level: 'silent' });
    const crashing = { name: QUEUES.runs, addBulk: () => Promise.reject(new Error('crash before enqueue')) };
    const failing = new OutboxRelay(
      suite.ds,
      new QueueProducers([...queues.all(), crashing as unknown as QueueProducer<typeof QUEUES.runs>]),
      logger,
      outbox,
    );
    await expect(failing.drain()).rejects.toThrow('crash before enqueue');
    expect(await runsQueue.getJob(run.id)).toBeUndefined();

    // A fresh relay, as in the restarted process, publishes what was committed.
    try {
      const relay = new OutboxRelay(suite.ds, queues, logger, outbox);
      expect(await relay.drain()).toBeGreaterThanOrEqual(2);
      const job = await runsQueue.getJob(run.id);
      expect(job?.data).toMatchObject({ run_id: run.id, tenant_id: t });
      const events = unbatchedJobs(await monitoringQueue.getJobs(['waiting']));
      expect(events.some((e) => (e.data as { run: { id: string } }).run.id === run.id && e.name === 'run.queued')).toBe(
        true,
      );
      const left = await suite.ds.query<{ n: number }[]>(
        `SELECT count(*)::int AS n FROM outbox WHERE run_id = $1 AND published_at IS NULL`,
        [run.id],
      );
      expect(left[0]?.n).toBe(0);
      // Publishing the same messages again is harmless: BullMQ dedupes on the job id.
      await suite.ds.query(`UPDATE outbox SET published_at = NULL WHERE run_id = $1`, [run.id]);
      await relay.drain();
      expect((await runsQueue.getJobs(['waiting'])).filter((j) => j.id === run.id)).toHaveLength(1);
    } finally {
      await queues.close();
    }
  });

  it("queues a manual trigger's command once, though both the trigger and the relay add it", async () => {
    const live = await startScheduler(suite.ds, prefix, { background: { relay: true, ticks: false, reaper: false } });
    const t = newTenant();
    try {
      const job = await caller.ok<Job>(t, 'scheduler.jobs.create', {
        body: { name: 'at-once', pipeline_id: store.add(t).id },
      });
      const run = await caller.ok<Run>(t, 'scheduler.runs.trigger', { job_id: job.id, body: {} });
      const queued = await waitFor(() => runsQueue.getJob(run.id), { what: "the run's command on the queue" });
      expect(queued.data).toMatchObject({ run_id: run.id, tenant_id: t, job_id: job.id, trigger: 'manual' });
      // The live scheduler's relay publishes the rows (a drain of our own would skip them while it holds them).
      await outboxPublished(suite.ds, run.id);
      const commands = (await runsQueue.getJobs(['waiting', 'delayed', 'active'])).filter(
        (j) => (j.data as { run_id?: string }).run_id === run.id,
      );
      expect(commands.map((j) => j.id)).toEqual([run.id]);
    } finally {
      await live.close();
    }
  });

  it('never enqueues a run canceled before its command was published', async () => {
    const quiet = await startScheduler(suite.ds, prefix, { background: { relay: false, ticks: false, reaper: false } });
    const t = newTenant();
    let run: Run;
    try {
      const job = await caller.ok<Job>(t, 'scheduler.jobs.create', {
        body: { name: 'short-lived', pipeline_id: store.add(t).id },
      });
      run = await caller.ok<Run>(t, 'scheduler.runs.trigger', { job_id: job.id, body: {} });
      await caller.ok<Run>(t, 'scheduler.runs.cancel', { job_id: job.id, run_id: run.id });
    } finally {
      await quiet.close();
    }
    await drainOutbox(suite.ds, prefix);
    expect(await runsQueue.getJob(run.id)).toBeUndefined();
    const events = unbatchedJobs(await monitoringQueue.getJobs(['waiting']));
    expect(
      events
        .filter((e) => (e.data as { run: { id: string } }).run.id === run.id)
        .map((e) => e.name)
        .sort(),
    ).toEqual(['run.canceled', 'run.queued']);
  });
});
