import { afterAll, describe, expect, it } from '@jest/globals';
import { useSchedulerSuite } from './support/scheduler-suite.js';
import type { DataSource } from 'typeorm';
import { QUEUES, type Job, type Page, type Run } from '@conduit/contracts';
import { newId } from '@conduit/service-kit';
import { nextFireTime } from '../src/schedules/next-fire-time.js';
import { JobSchedules } from '../src/schedules/job-schedules.js';
import { ScheduleClock } from '../src/schedules/schedule-clock.js';
import { FIRE_BATCH, ScheduledRuns } from '../src/schedules/scheduled-runs.js';
import { RunStateMachine } from '../src/runs/run-state-machine.js';
import { newTenant, openSchema } from './support/db.js';
import { waitFor } from '@conduit/testing';
import { startScheduler, type SchedulerUnderTest } from './support/scheduler-app.js';

let ds2: DataSource | undefined;
let two: SchedulerUnderTest | undefined;

// Declared before the suite's, so that the second replica stops before the schema it uses is dropped.
afterAll(async () => {
  await two?.close();
  await ds2?.destroy();
});

const suite = useSchedulerSuite({ scheduler: { background: { reaper: false } }, queues: [QUEUES.schedulerTicks] });
const { caller, store, prefix, schema } = suite;
const ticks = suite.queue(QUEUES.schedulerTicks);

async function newJob(t: string, body: Record<string, unknown> = {}): Promise<Job> {
  return caller.ok<Job>(t, 'scheduler.jobs.create', {
    body: { name: `cron-${newId('job')}`, pipeline_id: store.add(t).id, concurrency_policy: 'allow', ...body },
  });
}

async function runsOf(t: string, job: Job): Promise<Run[]> {
  return (await caller.ok<Page<Run>>(t, 'scheduler.runs.list', { job_id: job.id, query: { limit: 200 } })).data;
}

async function tickIds(jobId: string): Promise<string[]> {
  const rows = await suite.ds.query<
    {
      tick_id: string;
    }[]
  >(`SELECT tick_id FROM runs WHERE job_id = $1 ORDER BY tick_id`, [jobId]);
  return rows.map((r) => r.tick_id);
}

const tickMillis = (tickId: string) => Number(tickId.slice(tickId.lastIndexOf(':') + 1));

/** Gives the job a schedule the API would refuse (a seconds field, to fire quickly), due from `from` on. */
async function fastSchedule(job: Job, pattern: string, from = new Date()): Promise<void> {
  await suite.ds.query(`UPDATE jobs SET schedule = $2, next_fire_at = $3 WHERE id = $1`, [
    job.id,
    pattern,
    nextFireTime(pattern, 'UTC', from),
  ]);
}

async function unschedule(job: Job): Promise<void> {
  await suite.ds.query(`UPDATE jobs SET schedule = NULL, next_fire_at = NULL WHERE id = $1`, [job.id]);
}

describe('cron schedules fired by the schedule clock', () => {
  it("keeps each scheduled job's next fire, the one cron-parser gives in the job time zone", async () => {
    const t = newTenant();
    const job = await newJob(t, { schedule: '*/5 * * * *', timezone: 'Asia/Kolkata' });
    const [row] = await suite.ds.query<{ next_fire_at: Date }[]>(`SELECT next_fire_at FROM jobs WHERE id = $1`, [
      job.id,
    ]);
    const expected = nextFireTime('*/5 * * * *', 'Asia/Kolkata', new Date(Date.now() - 1000))!;
    expect(row!.next_fire_at.toISOString()).toBe(expected.toISOString());
    expect(job.next_run_at).toBe(expected.toISOString());
  });

  it('reconciles at boot: fills a missing next fire, keeps a due one, removes the BullMQ schedulers of before', async () => {
    const t = newTenant();
    const missing = await newJob(t, { schedule: '0 5 * * *' });
    const due = await newJob(t, { schedule: '0 4 * * *' });
    const dueAt = new Date(Date.now() - 3_600_000);
    await suite.ds.query(`UPDATE jobs SET next_fire_at = NULL WHERE id = $1`, [missing.id]);
    await suite.ds.query(`UPDATE jobs SET next_fire_at = $2, status = 'paused' WHERE id = $1`, [due.id, dueAt]);
    await ticks.upsertJobScheduler('job_stale', { pattern: '0 6 * * *' }, { name: 'tick', data: {} });

    await suite.scheduler.app.get(JobSchedules).reconcile();
    const rows = await suite.ds.query<
      {
        id: string;
        next_fire_at: Date;
      }[]
    >(`SELECT id, next_fire_at FROM jobs WHERE id = ANY($1)`, [[missing.id, due.id]]);
    const next = new Map(rows.map((r) => [r.id, r.next_fire_at.toISOString()]));
    expect(next.get(missing.id)).toBe(nextFireTime('0 5 * * *', 'UTC', new Date())!.toISOString());
    expect(next.get(due.id)).toBe(dueAt.toISOString());
    expect(await ticks.getJobScheduler('job_stale')).toBeUndefined();
    await suite.ds.query(`DELETE FROM jobs WHERE id = $1`, [due.id]);
  });

  it('takes a batch ahead of its fire time: jobs held, runs made at the time; a stop while it waits leaves the fire due', async () => {
    const t = newTenant();
    const job = await newJob(t);
    const clock = suite.scheduler.app.get(ScheduleClock);
    const scheduled = suite.scheduler.app.get(ScheduledRuns);
    const nextFire = async () =>
      (await suite.ds.query<{ next_fire_at: Date }[]>(`SELECT next_fire_at FROM jobs WHERE id = $1`, [job.id]))[0]!
        .next_fire_at;
    await clock.stop();
    try {
      const at = new Date(Date.now() + 1500);
      await suite.ds.query(`UPDATE jobs SET schedule = '0 0 1 1 *', next_fire_at = $2 WHERE id = $1`, [job.id, at]);
      const request = { at, limit: 10, snapshots: new Map() };
      const stopped = () => Promise.reject(new Error('clock stopped'));
      await expect(scheduled.fireDue({ ...request, untilDue: stopped })).rejects.toThrow('clock stopped');
      expect((await nextFire()).toISOString()).toBe(at.toISOString());

      let seenAhead: { free: number; runs: number } | undefined;
      const taken = await scheduled.fireDue({
        ...request,
        untilDue: async (when) => {
          const free = await suite.ds.query<{ id: string }[]>(
            `SELECT id FROM jobs WHERE id = $1 FOR UPDATE SKIP LOCKED`,
            [job.id],
          );
          seenAhead = { free: free.length, runs: (await runsOf(t, job)).length };
          await new Promise((r) => setTimeout(r, when.getTime() - Date.now()));
        },
      });
      expect(taken).toBe(1);
      expect(seenAhead).toEqual({ free: 0, runs: 0 });
      const [run] = await runsOf(t, job);
      expect(Date.parse(run!.queued_at)).toBeGreaterThanOrEqual(at.getTime());
      expect((await nextFire()).toISOString()).toBe(nextFireTime('0 0 1 1 *', 'UTC', at)!.toISOString());
    } finally {
      clock.start();
      await unschedule(job);
    }
  });

  it('fires a time missed while no clock ran once when a clock is back, without a storm', async () => {
    const t = newTenant();
    const job = await newJob(t);
    const clock = suite.scheduler.app.get(ScheduleClock);
    await clock.stop();
    // Every 3 seconds (a seconds field is possible here, below the API's five-field check), so fire times pass quickly.
    await fastSchedule(job, '*/3 * * * * *');
    await new Promise((r) => setTimeout(r, 7_000)); // at least two fire times pass with no clock
    expect(await runsOf(t, job)).toHaveLength(0);
    const backAt = Date.now();
    clock.start();
    const [run] = await waitFor(
      async () => {
        const runs = await runsOf(t, job);
        return runs.length > 0 ? runs : undefined;
      },
      { what: 'the missed fire made' },
    );
    expect(run).toMatchObject({ trigger: 'schedule', status: 'queued' });
    await unschedule(job);
    const ids = await tickIds(job.id);
    // Only the first missed fire ran; anything later is a fire after the clock came back.
    expect(tickMillis(ids[0]!)).toBeLessThan(backAt - 3000);
    expect(ids.slice(1).every((id) => tickMillis(id) >= backAt - 1000)).toBe(true);
  }, 30_000);

  it('keeps a fire due while the catalog is out, and makes it once the catalog answers again', async () => {
    const t = newTenant();
    const job = await newJob(t);
    store.unavailable.add(job.pipeline_id);
    await store.changed(t);
    const dueAt = new Date(Date.now() - 60_000);
    await suite.ds.query(`UPDATE jobs SET schedule = '0 0 1 1 *', next_fire_at = $2 WHERE id = $1`, [job.id, dueAt]);
    // Asked on two passes: the first outage rolled its batch back rather than skipping the fire.
    await waitFor(async () => (store.asked.get(job.pipeline_id) ?? 0) >= 2, {
      what: 'the fire tried again',
      timeoutMs: 10_000,
      intervalMs: 50,
    });
    expect(await runsOf(t, job)).toHaveLength(0);
    const [row] = await suite.ds.query<{ next_fire_at: Date }[]>(`SELECT next_fire_at FROM jobs WHERE id = $1`, [
      job.id,
    ]);
    expect(row!.next_fire_at.toISOString()).toBe(dueAt.toISOString());

    store.unavailable.delete(job.pipeline_id);
    await waitFor(async () => (await runsOf(t, job)).length > 0 || undefined, { what: 'the kept fire made' });
    expect(await tickIds(job.id)).toEqual([`repeat:${job.id}:${dueAt.getTime()}`]);
    await unschedule(job);
  }, 30_000);

  it('fires each time once, none missed, with two scheduler replicas', async () => {
    ds2 = await openSchema(schema);
    two = await startScheduler(ds2, prefix, { background: { reaper: false } });
    const t = newTenant();
    const job = await newJob(t);
    const made: string[] = [];
    for (const app of [suite.scheduler.app, two.app]) {
      const machine = app.get(RunStateMachine);
      const original = machine.createScheduledWithin.bind(machine);
      machine.createScheduledWithin = (m, batch, drafts) => {
        made.push(...drafts.filter((d) => d.jobId === job.id).map((d) => d.tickId));
        return original(m, batch, drafts);
      };
    }
    await fastSchedule(job, '* * * * * *');
    await waitFor(async () => (await runsOf(t, job)).length >= 5, { what: 'five fires', timeoutMs: 15_000 });
    await unschedule(job);
    await new Promise((r) => setTimeout(r, 1500)); // a batch taken just before finishes
    const ids = await tickIds(job.id);
    // Every fire time was taken by exactly one replica, and each made exactly one run, one second after the other.
    expect(new Set(made).size).toBe(made.length);
    expect([...made].sort()).toEqual(ids);
    const gaps = ids.slice(1).map((id, i) => tickMillis(id) - tickMillis(ids[i]!));
    expect(gaps.every((g) => g === 1000)).toBe(true);
    expect((await runsOf(t, job)).every((r) => r.trigger === 'schedule')).toBe(true);
  }, 30_000);

  it("fires more due jobs than a batch holds, each once, and applies each job's concurrency policy", async () => {
    const t = newTenant();
    const pipeline = store.add(t);
    const template = await newJob(t, { pipeline_id: pipeline.id });
    const count = FIRE_BATCH * 2 + 100;
    const dueAt = new Date(Math.floor(Date.now() / 1000) * 1000 - 1000);
    // Copies of one job, all due at once (made in the table directly: the API would take a while for this many).
    await suite.ds.query(
      `INSERT INTO jobs (id, tenant_id, name, description, pipeline_id, schedule, timezone, status, concurrency_policy, parameters, revision, created_at, updated_at, next_fire_at)
       SELECT $1 || g, tenant_id, name || g, description, pipeline_id, '0 0 1 1 *', timezone, 'active', 'allow', parameters, 1, created_at, updated_at, $2
         FROM jobs, generate_series(1, $3) AS g WHERE id = $4`,
      [`${template.id}_`, dueAt, count, template.id],
    );
    // Three jobs with an active run each: forbid skips its fire, allow adds a run, replace cancels the active one.
    const policies = {} as Record<string, Job>;
    for (const policy of ['forbid', 'allow', 'replace']) {
      const job = await newJob(t, { pipeline_id: pipeline.id, concurrency_policy: policy });
      await caller.ok(t, 'scheduler.runs.trigger', { job_id: job.id, body: {} });
      await fastSchedule(job, '0 0 1 1 *', new Date(dueAt.getTime() - 60_000));
      await suite.ds.query(`UPDATE jobs SET next_fire_at = $2 WHERE id = $1`, [job.id, dueAt]);
      policies[policy] = job;
    }
    await waitFor(
      async () => {
        const [row] = await suite.ds.query<{ n: number }[]>(
          `SELECT count(*)::int AS n FROM runs WHERE job_id LIKE $1 AND trigger = 'schedule'`,
          [`${template.id}\\_%`],
        );
        return row!.n >= count;
      },
      { what: 'every copy fired', timeoutMs: 20_000 },
    );
    const [copies] = await suite.ds.query<{ runs: number; jobs: number; at_due: number }[]>(
      `SELECT count(*)::int AS runs, count(DISTINCT job_id)::int AS jobs, count(*) FILTER (WHERE tick_id = 'repeat:' || job_id || ':' || $2)::int AS at_due
         FROM runs WHERE job_id LIKE $1`,
      [`${template.id}\\_%`, String(dueAt.getTime())],
    );
    expect(copies).toEqual({ runs: count, jobs: count, at_due: count });
    const [left] = await suite.ds.query<{ n: number }[]>(
      `SELECT count(*)::int AS n FROM jobs WHERE id LIKE $1 AND next_fire_at <= $2`,
      [`${template.id}\\_%`, dueAt],
    );
    expect(left!.n).toBe(0);
    await waitFor(async () => (await runsOf(t, policies['replace']!)).length === 2, { what: 'the policies applied' });
    const statuses = async (job: Job) => (await runsOf(t, job)).map((r) => `${r.trigger}:${r.status}`).sort();
    expect(await statuses(policies['forbid']!)).toEqual(['manual:queued']);
    expect(await statuses(policies['allow']!)).toEqual(['manual:queued', 'schedule:queued']);
    expect(await statuses(policies['replace']!)).toEqual(['manual:canceled', 'schedule:queued']);
    // The copies' runs are still being published and cancelled around this delete (its cascade locks them in
    // another order): PostgreSQL may pick it as a deadlock victim, and a second try then finds the rows free.
    for (let attempt = 1; ; attempt++) {
      try {
        await suite.ds.query(`DELETE FROM jobs WHERE id LIKE $1`, [`${template.id}\\_%`]);
        break;
      } catch (err) {
        if ((err as { code?: string }).code !== '40P01' || attempt === 5) throw err;
      }
    }
  }, 40_000);

  it('moves a stored schedule that never fires on to no next fire, and keeps firing the other jobs', async () => {
    const t = newTenant();
    const fast = await newJob(t);
    const template = await newJob(t, { schedule: '0 0 1 1 *' });
    // Stored before the API refused them (made in the table directly): one due (its next fire from before), one
    // without a next fire (boot reconciles it), and a form the exact check does not read (`?`).
    const never = [
      { id: newId('job'), schedule: '* * 31 4,6,9,11 *', next: new Date(Date.now() - 1000) },
      { id: newId('job'), schedule: '0 0 30 2 *', next: null },
      { id: newId('job'), schedule: '0 0 31 4,6,9,11 ?', next: new Date(Date.now() - 1000) },
    ];
    await suite.ds.query(
      `INSERT INTO jobs (id, tenant_id, name, description, pipeline_id, schedule, timezone, status, concurrency_policy, parameters, revision, created_at, updated_at, next_fire_at)
       SELECT v.id, tenant_id, name || v.n, description, pipeline_id, v.schedule, 'Europe/Paris', 'active', 'allow', parameters, 1, created_at, updated_at, v.next
         FROM jobs, unnest($1::text[], $2::text[], $3::timestamptz[]) WITH ORDINALITY AS v(id, schedule, next, n)
        WHERE jobs.id = $4`,
      [never.map((j) => j.id), never.map((j) => j.schedule), never.map((j) => j.next), template.id],
    );
    await fastSchedule(fast, '* * * * * *');
    await suite.scheduler.app.get(JobSchedules).reconcile();
    // The due ones fire their stored time once, then have no next fire; the clock goes on with the others.
    await waitFor(async () => (await runsOf(t, fast)).length >= 3, { what: 'the other job fired', timeoutMs: 15_000 });
    await waitFor(
      async () => {
        const rows = await suite.ds.query<{ n: number }[]>(
          `SELECT count(*)::int AS n FROM jobs WHERE id = ANY($1) AND next_fire_at IS NULL`,
          [never.map((j) => j.id)],
        );
        return rows[0]!.n === never.length;
      },
      { what: 'the never-firing jobs moved on to no next fire' },
    );
    const before = (await runsOf(t, fast)).length;
    await waitFor(async () => (await runsOf(t, fast)).length > before, { what: 'the other job still firing' });
    await unschedule(fast);
    const listed = await caller.ok<Page<Job>>(t, 'scheduler.jobs.list', { query: { limit: 200 } });
    for (const { id } of never) {
      expect(listed.data.find((j) => j.id === id)).toMatchObject({ next_run_at: null, upcoming_runs_at: [] });
    }
    await suite.ds.query(`DELETE FROM jobs WHERE id = ANY($1)`, [never.map((j) => j.id)]);
  }, 30_000);

  it('produces a run by itself from a five-field `* * * * *` schedule', async () => {
    const t = newTenant();
    const job = await newJob(t, { schedule: '* * * * *' });
    const [run] = await waitFor(
      async () => {
        const runs = await runsOf(t, job);
        return runs.length > 0 ? runs : undefined;
      },
      { what: 'a scheduled run', timeoutMs: 70_000, intervalMs: 500 },
    );
    expect(run).toMatchObject({ trigger: 'schedule', job_id: job.id });
    const job2 = await caller.ok<Job>(t, 'scheduler.jobs.get', { id: job.id });
    expect(job2.last_run?.id).toBe(run!.id);
    await caller.ok(t, 'scheduler.jobs.pause', { id: job.id });
  }, 80_000);
});
