import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { INestMicroservice } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { QUEUES, type Job, type Run } from '@conduit/contracts';
import { OutboxRelay, QueueProducers, bullPrefix, createLogger, type QueueProducer } from '@conduit/service-kit';
import { schedulerOutbox } from '../src/outbox/scheduler-outbox.js';
import { schedulerSettings } from '../src/scheduler-settings.js';
import { dropSchema, newSchemaName, newTenant, openSchema } from './support/db.js';
import { deleteKeys, REDIS_URL, requireRedis, testPrefix } from './support/redis.js';
import { PipelineStore, startStubCatalog } from './support/stub-catalog.js';
import { SchedulerCaller, startScheduler, type SchedulerUnderTest } from './support/scheduler-app.js';

const prefix = testPrefix();
const SCHEDULER_PRODUCES = [QUEUES.runs, QUEUES.eventsMonitoring, QUEUES.eventsWebhooks];
const schema = newSchemaName();
const store = new PipelineStore();
let redis: Redis;
let ds: DataSource;
let catalog: INestMicroservice;
let caller: SchedulerCaller;
let runsQueue: Queue;
let monitoringQueue: Queue;

beforeAll(async () => {
  redis = await requireRedis();
  ds = await openSchema(schema);
  catalog = await startStubCatalog(REDIS_URL, prefix, store);
  caller = new SchedulerCaller(prefix);
  runsQueue = new Queue(QUEUES.runs, { connection: { url: REDIS_URL }, prefix: bullPrefix(prefix) });
  monitoringQueue = new Queue(QUEUES.eventsMonitoring, { connection: { url: REDIS_URL }, prefix: bullPrefix(prefix) });
});

afterAll(async () => {
  await Promise.allSettled([runsQueue?.close(), monitoringQueue?.close()]);
  await caller?.close();
  await catalog?.close();
  if (ds) await dropSchema(ds, schema);
  if (redis) {
    await deleteKeys(redis, prefix);
    redis.disconnect();
  }
});

describe('the transactional outbox', () => {
  it('loses nothing when the process dies between the commit and the enqueue', async () => {
    // A scheduler whose relay never runs: the trigger commits, then the process "dies" before publishing.
    const crashed: SchedulerUnderTest = await startScheduler(ds, prefix, {
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
    const pending = await ds.query<{ kind: string }[]>(
      `SELECT kind FROM outbox WHERE run_id = $1 AND published_at IS NULL ORDER BY id`,
      [run.id],
    );
    expect(pending.map((p) => p.kind)).toEqual(['run_command', 'run_event']);

    // A relay that throws on its first enqueue publishes nothing and marks nothing.
    const queues = QueueProducers.open({ redisUrl: REDIS_URL, redisPrefix: prefix }, SCHEDULER_PRODUCES);
    const outbox = schedulerOutbox(schedulerSettings({ redisUrl: REDIS_URL, redisPrefix: prefix }));
    const logger = createLogger({ service: 't', level: 'silent' });
    const crashing = { name: QUEUES.runs, add: () => Promise.reject(new Error('crash before enqueue')) };
    const failing = new OutboxRelay(
      ds,
      new QueueProducers([...queues.all(), crashing as unknown as QueueProducer<typeof QUEUES.runs>]),
      logger,
      outbox,
    );
    await expect(failing.drain()).rejects.toThrow('crash before enqueue');
    expect(await runsQueue.getJob(run.id)).toBeUndefined();

    // A fresh relay, as in the restarted process, publishes what was committed.
    try {
      const relay = new OutboxRelay(ds, queues, logger, outbox);
      expect(await relay.drain()).toBeGreaterThanOrEqual(2);
      const job = await runsQueue.getJob(run.id);
      expect(job?.data).toMatchObject({ run_id: run.id, tenant_id: t });
      const events = await monitoringQueue.getJobs(['waiting']);
      expect(events.some((e) => (e.data as { run: { id: string } }).run.id === run.id && e.name === 'run.queued')).toBe(
        true,
      );
      const left = await ds.query<{ n: number }[]>(
        `SELECT count(*)::int AS n FROM outbox WHERE run_id = $1 AND published_at IS NULL`,
        [run.id],
      );
      expect(left[0]?.n).toBe(0);
      // Publishing the same messages again is harmless: BullMQ dedupes on the job id.
      await ds.query(`UPDATE outbox SET published_at = NULL WHERE run_id = $1`, [run.id]);
      await relay.drain();
      expect((await runsQueue.getJobs(['waiting'])).filter((j) => j.id === run.id)).toHaveLength(1);
    } finally {
      await queues.close();
    }
  });

  it('never enqueues a run canceled before its command was published', async () => {
    const quiet = await startScheduler(ds, prefix, { background: { relay: false, ticks: false, reaper: false } });
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
    const queues = QueueProducers.open({ redisUrl: REDIS_URL, redisPrefix: prefix }, SCHEDULER_PRODUCES);
    try {
      await new OutboxRelay(
        ds,
        queues,
        createLogger({ service: 't', level: 'silent' }),
        schedulerOutbox(schedulerSettings({ redisUrl: REDIS_URL, redisPrefix: prefix })),
      ).drain();
    } finally {
      await queues.close();
    }
    expect(await runsQueue.getJob(run.id)).toBeUndefined();
    const events = await monitoringQueue.getJobs(['waiting']);
    expect(
      events
        .filter((e) => (e.data as { run: { id: string } }).run.id === run.id)
        .map((e) => e.name)
        .sort(),
    ).toEqual(['run.canceled', 'run.queued']);
  });
});
