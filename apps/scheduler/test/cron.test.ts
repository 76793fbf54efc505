import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { INestMicroservice } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { QUEUES, newId, type Job, type Page, type Run } from '@conduit/contracts';
import { bullPrefix } from '../src/queues/bull-prefix.js';
import { nextFireTime } from '../src/schedules/next-fire-time.js';
import { JobSchedules } from '../src/schedules/job-schedules.js';
import { TickWorker } from '../src/schedules/tick.worker.js';
import { dropSchema, newSchemaName, newTenant, openSchema } from './support/db.js';
import { deleteKeys, REDIS_URL, requireRedis, testPrefix } from './support/redis.js';
import { PipelineStore, startStubCatalog } from './support/stub-catalog.js';
import { SchedulerCaller, startScheduler, waitFor, type SchedulerUnderTest } from './support/scheduler-app.js';

const prefix = testPrefix();
const schema = newSchemaName();
const store = new PipelineStore();
let redis: Redis;
let ds: DataSource;
let ds2: DataSource;
let catalog: INestMicroservice;
let one: SchedulerUnderTest;
let two: SchedulerUnderTest | undefined;
let caller: SchedulerCaller;
let ticks: Queue;

beforeAll(async () => {
  redis = await requireRedis();
  ds = await openSchema(schema);
  ds2 = await openSchema(schema);
  catalog = await startStubCatalog(REDIS_URL, prefix, store);
  one = await startScheduler(ds, prefix, { background: { reaper: false } });
  caller = new SchedulerCaller(prefix);
  ticks = new Queue(QUEUES.schedulerTicks, { connection: { url: REDIS_URL }, prefix: bullPrefix(prefix) });
});

afterAll(async () => {
  await ticks?.close();
  await caller?.close();
  await two?.close();
  await one?.close();
  await catalog?.close();
  await ds2?.destroy();
  if (ds) await dropSchema(ds, schema);
  if (redis) {
    await deleteKeys(redis, prefix);
    redis.disconnect();
  }
});

async function newJob(t: string, body: Record<string, unknown> = {}): Promise<Job> {
  return caller.ok<Job>(t, 'scheduler.jobs.create', { body: { name: `cron-${newId('job')}`, pipeline_id: store.add(t).id, concurrency_policy: 'allow', ...body } });
}

async function runsOf(t: string, job: Job): Promise<Run[]> {
  return (await caller.ok<Page<Run>>(t, 'scheduler.runs.list', { job_id: job.id, query: { limit: 200 } })).data;
}

async function tickIds(jobId: string): Promise<string[]> {
  const rows = (await ds.query(`SELECT tick_id FROM runs WHERE job_id = $1 ORDER BY tick_id`, [jobId])) as { tick_id: string }[];
  return rows.map((r) => r.tick_id);
}

const tickMillis = (tickId: string) => Number(tickId.slice(tickId.lastIndexOf(':') + 1));

describe('cron schedules as BullMQ job schedulers', () => {
  it('keeps one scheduler per scheduled job, whose next tick is the one cron-parser computes in the job time zone', async () => {
    const t = newTenant();
    const job = await newJob(t, { schedule: '*/5 * * * *', timezone: 'Asia/Kolkata' });
    const scheduler = await ticks.getJobScheduler(job.id);
    expect(scheduler).toMatchObject({ key: job.id, pattern: '*/5 * * * *', tz: 'Asia/Kolkata' });
    const expected = nextFireTime('*/5 * * * *', 'Asia/Kolkata', new Date(Date.now() - 1000))!.getTime();
    expect(scheduler?.next).toBe(expected);
    const delayed = (await ticks.getJobs(['delayed'])).filter((j) => j.repeatJobKey === job.id);
    expect(delayed).toHaveLength(1);
    expect(delayed[0]!.timestamp + delayed[0]!.delay).toBe(expected);
    expect(delayed[0]!.data).toEqual({ job_id: job.id, tenant_id: t });
    expect(job.next_run_at).toBe(new Date(expected).toISOString());
  });

  it('reconciles at boot: adds a missing scheduler, removes a stale one, leaves a right one untouched', async () => {
    const t = newTenant();
    const kept = await newJob(t, { schedule: '0 4 * * *' });
    const lost = await newJob(t, { schedule: '0 5 * * *' });
    const schedules = one.app.get(JobSchedules);
    await schedules.remove(lost.id);
    await schedules.upsert('job_stale', t, '0 6 * * *', 'UTC');
    const keptNext = (await ticks.getJobs(['delayed'])).find((j) => j.repeatJobKey === kept.id)?.id;

    await schedules.reconcile();
    expect((await ticks.getJobScheduler(lost.id))?.pattern).toBe('0 5 * * *');
    expect(await ticks.getJobScheduler('job_stale')).toBeUndefined();
    expect((await ticks.getJobs(['delayed'])).find((j) => j.repeatJobKey === kept.id)?.id).toBe(keptNext);
  });

  it('fires a tick missed while no worker ran once when a worker is back, without a storm', async () => {
    const t = newTenant();
    const job = await newJob(t);
    const worker = one.app.get(TickWorker);
    await worker.stop();
    // Every 3 seconds (a seconds field is possible here, below the API's five-field check), so ticks pass quickly.
    await one.app.get(JobSchedules).upsert(job.id, t, '*/3 * * * * *', 'UTC');
    await new Promise((r) => setTimeout(r, 7_000)); // at least two tick times pass with no worker
    expect(await runsOf(t, job)).toHaveLength(0);
    const backAt = Date.now();
    worker.start();
    const [run] = await waitFor('the missed tick fired', async () => {
      const runs = await runsOf(t, job);
      return runs.length > 0 ? runs : undefined;
    });
    expect(run).toMatchObject({ trigger: 'schedule', status: 'queued' });
    await one.app.get(JobSchedules).remove(job.id);
    const ids = await tickIds(job.id);
    // Only the first missed tick ran; anything later is a tick after the worker came back.
    expect(tickMillis(ids[0]!)).toBeLessThan(backAt - 3000);
    expect(ids.slice(1).every((id) => tickMillis(id) >= backAt - 1000)).toBe(true);
  }, 30_000);

  it('fires each tick once with two scheduler replicas', async () => {
    two = await startScheduler(ds2, prefix, { background: { reaper: false } });
    const t = newTenant();
    const job = await newJob(t);
    const handled: string[] = [];
    for (const app of [one.app, two.app]) {
      const worker = app.get(TickWorker);
      const original = worker.handle.bind(worker);
      worker.handle = (tick) => {
        handled.push(String(tick.id));
        return original(tick);
      };
    }
    await one.app.get(JobSchedules).upsert(job.id, t, '* * * * * *', 'UTC');
    await waitFor('five ticks', async () => (await runsOf(t, job)).length >= 5, 15_000);
    await one.app.get(JobSchedules).remove(job.id);
    await new Promise((r) => setTimeout(r, 1500)); // a tick taken just before the removal finishes
    const ids = await tickIds(job.id);
    const mine = handled.filter((id) => id.startsWith(`repeat:${job.id}:`));
    // Every tick was handled by exactly one replica, and each made exactly one run.
    expect(new Set(mine).size).toBe(mine.length);
    expect([...mine].sort()).toEqual(ids);
    expect((await runsOf(t, job)).every((r) => r.trigger === 'schedule')).toBe(true);
  }, 30_000);

  it('produces a run by itself from a five-field `* * * * *` schedule', async () => {
    const t = newTenant();
    const job = await newJob(t, { schedule: '* * * * *' });
    const [run] = await waitFor('a scheduled run', async () => {
      const runs = await runsOf(t, job);
      return runs.length > 0 ? runs : undefined;
    }, 70_000, 500);
    expect(run).toMatchObject({ trigger: 'schedule', job_id: job.id });
    const job2 = await caller.ok<Job>(t, 'scheduler.jobs.get', { id: job.id });
    expect(job2.last_run?.id).toBe(run!.id);
    await caller.ok(t, 'scheduler.jobs.pause', { id: job.id });
  }, 80_000);
});
