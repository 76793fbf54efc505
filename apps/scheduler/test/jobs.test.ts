import { describe, expect, it } from '@jest/globals';
import { useSchedulerSuite } from './support/scheduler-suite.js';
import { QUEUES, rpcPatterns, type Job, type Page, type Run } from '@conduit/contracts';
import { nextFireTime, upcomingFireTimes } from '../src/schedules/next-fire-time.js';
import { newTenant } from './support/db.js';
import { newId } from '@conduit/service-kit';
import { waitFor } from '@conduit/testing';

// The schedule clock stays off: these tests look at the next fire times, not at runs they would make.
const suite = useSchedulerSuite({ scheduler: { background: { ticks: false } }, queues: [QUEUES.runs] });
const { caller, store } = suite;
const runsQueue = suite.queue(QUEUES.runs);

/** The job's stored next fire (ISO), null when it has none, undefined when the job is gone. */
async function nextFireAt(jobId: string): Promise<string | null | undefined> {
  const [row] = await suite.ds.query<
    {
      next_fire_at: Date | null;
    }[]
  >(`SELECT next_fire_at FROM jobs WHERE id = $1`, [jobId]);
  return row ? (row.next_fire_at?.toISOString() ?? null) : undefined;
}

describe('jobs over RPC', () => {
  it('creates, reads, lists, replaces and deletes a job, with ETags and If-Match', async () => {
    const t = newTenant();
    const pipeline = store.add(t);
    const created = await caller.call<Job>(t, 'scheduler.jobs.create', {
      body: {
        name: 'nightly',
        pipeline_id: pipeline.id,
        schedule: '30 2 * * *',
        timezone: 'Europe/Paris',
        parameters: { full: true },
      },
    });
    if (!created.ok) throw new Error(JSON.stringify(created.error));
    const job = created.data;
    expect(job).toMatchObject({
      name: 'nightly',
      description: null,
      status: 'active',
      concurrency_policy: 'forbid',
      timezone: 'Europe/Paris',
      last_run: null,
      parameters: { full: true },
    });
    expect(job.id).toMatch(/^job_/);
    expect(job.next_run_at).toBe(nextFireTime('30 2 * * *', 'Europe/Paris', new Date())!.toISOString());
    expect(created.etag).toMatch(/^".+"$/);

    const got = await caller.call<Job>(t, 'scheduler.jobs.get', { id: job.id });
    expect(got).toMatchObject({ ok: true, data: { id: job.id, name: 'nightly' }, etag: created.etag });

    const stale = await caller.call(t, 'scheduler.jobs.update', {
      id: job.id,
      if_match: '"nope"',
      body: { name: 'x', pipeline_id: pipeline.id },
    });
    expect(stale).toMatchObject({ ok: false, error: { code: 'precondition_failed' } });
    const updated = await caller.call<Job>(t, 'scheduler.jobs.update', {
      id: job.id,
      if_match: created.etag,
      body: { name: 'hourly', pipeline_id: pipeline.id, schedule: '0 * * * *' },
    });
    if (!updated.ok) throw new Error(JSON.stringify(updated.error));
    // A full replacement: what was not sent takes its default.
    expect(updated.data).toMatchObject({
      name: 'hourly',
      schedule: '0 * * * *',
      timezone: 'UTC',
      parameters: {},
      status: 'active',
    });
    expect(updated.etag).not.toBe(created.etag);
    expect(await nextFireAt(job.id)).toBe(nextFireTime('0 * * * *', 'UTC', new Date())!.toISOString());

    expect(await caller.call(newTenant(), 'scheduler.jobs.get', { id: job.id })).toMatchObject({
      ok: false,
      error: { code: 'not_found' },
    });
    expect(await caller.call(t, 'scheduler.jobs.get', { id: 'job_123' })).toMatchObject({
      ok: false,
      error: { code: 'not_found' },
    });

    expect(await caller.ok(t, 'scheduler.jobs.delete', { id: job.id })).toBeNull();
    expect(await caller.call(t, 'scheduler.jobs.get', { id: job.id })).toMatchObject({
      ok: false,
      error: { code: 'not_found' },
    });
    expect(await nextFireAt(job.id)).toBeUndefined();
  });

  it('refuses a pipeline the tenant does not have (422 unknown_pipeline) and a taken name (409 name_taken)', async () => {
    const t = newTenant();
    const foreign = store.add(newTenant());
    for (const pipeline_id of [foreign.id, 'pln_01JD3V6Y9ZQ8W1S3X5C7E9G2HK', 'not-an-id']) {
      const reply = await caller.call(t, 'scheduler.jobs.create', { body: { name: 'a', pipeline_id } });
      expect(reply).toMatchObject({
        ok: false,
        error: { code: 'unknown_pipeline', errors: [{ path: 'pipeline_id', code: 'unknown_pipeline' }] },
      });
    }
    const pipeline = store.add(t);
    await caller.ok(t, 'scheduler.jobs.create', { body: { name: 'same', pipeline_id: pipeline.id } });
    expect(
      await caller.call(t, 'scheduler.jobs.create', { body: { name: 'same', pipeline_id: pipeline.id } }),
    ).toMatchObject({ ok: false, error: { code: 'name_taken' } });
    // Names are per tenant.
    const other = newTenant();
    await caller.ok(other, 'scheduler.jobs.create', { body: { name: 'same', pipeline_id: store.add(other).id } });
  });

  it('refuses schema-level mistakes over RPC too (422 validation_failed)', async () => {
    const t = newTenant();
    const reply = await caller.call(t, 'scheduler.jobs.create', {
      body: { name: 'a', pipeline_id: store.add(t).id, schedule: '0 0 * * * *' },
    });
    expect(reply).toMatchObject({
      ok: false,
      error: { code: 'validation_failed', errors: [{ path: 'body.schedule', code: 'invalid_cron' }] },
    });
  });

  it('refuses a schedule whose dates never come at create and update (422 invalid_cron naming the day of month)', async () => {
    const t = newTenant();
    const pipeline = store.add(t);
    const neverFires = (reply: unknown, month: string) =>
      expect(reply).toMatchObject({
        ok: false,
        error: {
          code: 'validation_failed',
          errors: [
            {
              path: 'body.schedule',
              code: 'invalid_cron',
              message: expect.stringMatching(new RegExp(`^day of month .* never comes in ${month}.*never fires`)),
            },
          ],
        },
      });
    neverFires(
      await caller.call(t, 'scheduler.jobs.create', {
        body: { name: 'day31', pipeline_id: pipeline.id, schedule: '* * 31 4,6,9,11 *' },
      }),
      'April, June, September or November',
    );
    neverFires(
      await caller.call(t, 'scheduler.jobs.create', {
        body: { name: 'feb30', pipeline_id: pipeline.id, schedule: '0 0 30 2 *' },
      }),
      'February',
    );
    expect((await caller.ok<Page<Job>>(t, 'scheduler.jobs.list', { query: { limit: 10 } })).data).toEqual([]);

    const job = await caller.ok<Job>(t, 'scheduler.jobs.create', {
      body: { name: 'monthly', pipeline_id: pipeline.id, schedule: '0 0 1 * *' },
    });
    neverFires(
      await caller.call(t, 'scheduler.jobs.update', {
        id: job.id,
        body: { name: 'monthly', pipeline_id: pipeline.id, schedule: '0 0 30 FEB *', timezone: 'Europe/Paris' },
      }),
      'February',
    );
    expect(await caller.ok<Job>(t, 'scheduler.jobs.get', { id: job.id })).toMatchObject({ schedule: '0 0 1 * *' });
  });

  it('accepts a schedule of 29 February: it fires in the next leap year', async () => {
    const t = newTenant();
    const job = await caller.ok<Job>(t, 'scheduler.jobs.create', {
      body: { name: 'leap', pipeline_id: store.add(t).id, schedule: '0 12 29 2 *' },
    });
    expect(job.next_run_at).toMatch(/^\d{4}-02-29T12:00:00\.000Z$/);
    const year = new Date(job.next_run_at!).getUTCFullYear();
    expect(year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0)).toBe(true);
    expect(await nextFireAt(job.id)).toBe(job.next_run_at);
    // Either day field: the 30th of February never comes, but every Monday of February does.
    const either = await caller.ok<Job>(t, 'scheduler.jobs.create', {
      body: { name: 'mondays', pipeline_id: store.add(t).id, schedule: '0 12 30 2 MON' },
    });
    expect(new Date(either.next_run_at!).getUTCDay()).toBe(1);
  });

  it('answers a stored schedule that never fires (from before the API refused it) as never, page after page', async () => {
    const t = newTenant();
    const template = await caller.ok<Job>(t, 'scheduler.jobs.create', {
      body: { name: 'template', pipeline_id: store.add(t).id, schedule: '0 0 1 * *' },
    });
    // 200 distinct schedules (none shares another's cached answer): cron-parser alone searched ~0.7 s for each one.
    const schedules = Array.from({ length: 199 }, (_, i) =>
      i % 2 === 0 ? `${i % 60} ${Math.floor(i / 60)} 31 4,6,9,11 *` : `${i % 60} ${Math.floor(i / 60)} 30,31 2 *`,
    );
    // A form the exact check does not read (`?`) is still answered never, at the search's horizon.
    schedules.push('0 0 31 4,6,9,11 ?');
    const ids = schedules.map(() => newId('job'));
    await suite.ds.query(
      `INSERT INTO jobs (id, tenant_id, name, description, pipeline_id, schedule, timezone, status, concurrency_policy, parameters, revision, created_at, updated_at, next_fire_at)
       SELECT s.id, tenant_id, name || s.n, description, pipeline_id, s.schedule, 'Europe/Paris', 'active', concurrency_policy, parameters, 1, created_at, updated_at, NULL
         FROM jobs, unnest($1::text[], $2::text[]) WITH ORDINALITY AS s(id, schedule, n) WHERE jobs.id = $3`,
      [ids, schedules, template.id],
    );
    const page = await caller.ok<Page<Job>>(t, 'scheduler.jobs.list', { query: { limit: 200 } });
    expect(page.data).toHaveLength(200);
    const stored = page.data.filter((j) => j.id !== template.id);
    expect(stored.length).toBeGreaterThanOrEqual(199);
    for (const job of stored) expect(job).toMatchObject({ status: 'active', next_run_at: null, upcoming_runs_at: [] });
    const rest = await caller.ok<Page<Job>>(t, 'scheduler.jobs.list', {
      query: { limit: 200, cursor: page.next_cursor },
    });
    expect([...page.data, ...rest.data].map((j) => j.schedule).sort()).toEqual([...schedules, '0 0 1 * *'].sort());
    const one = ids[0]!;
    expect(await caller.ok<Job>(t, 'scheduler.jobs.get', { id: one })).toMatchObject({
      schedule: schedules[0],
      next_run_at: null,
      upcoming_runs_at: [],
    });
    // Paused and resumed, it still has no next fire; other jobs keep theirs.
    await caller.ok(t, 'scheduler.jobs.pause', { id: one });
    expect(await caller.ok<Job>(t, 'scheduler.jobs.resume', { id: one })).toMatchObject({ next_run_at: null });
    expect(await nextFireAt(one)).toBeNull();
    expect(await nextFireAt(template.id)).toBe(template.next_run_at);
  });

  it('lists newest first with filters and keyset pages, and counts usage per pipeline', async () => {
    const t = newTenant();
    const p1 = store.add(t);
    const p2 = store.add(t);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++)
      ids.push(
        (
          await caller.ok<Job>(t, 'scheduler.jobs.create', {
            body: { name: `j${i}`, pipeline_id: i < 3 ? p1.id : p2.id },
          })
        ).id,
      );
    await caller.ok(t, 'scheduler.jobs.pause', { id: ids[0] });

    const first = await caller.ok<Page<Job>>(t, 'scheduler.jobs.list', { query: { limit: 2 } });
    expect(first.data.map((j) => j.id)).toEqual([ids[4], ids[3]]);
    const second = await caller.ok<Page<Job>>(t, 'scheduler.jobs.list', {
      query: { limit: 2, cursor: first.next_cursor },
    });
    expect(second.data.map((j) => j.id)).toEqual([ids[2], ids[1]]);
    const byPipeline = await caller.ok<Page<Job>>(t, 'scheduler.jobs.list', {
      query: { limit: 50, pipeline_id: p1.id },
    });
    expect(byPipeline.data.map((j) => j.id)).toEqual([ids[2], ids[1], ids[0]]);
    const paused = await caller.ok<Page<Job>>(t, 'scheduler.jobs.list', { query: { limit: 50, status: 'paused' } });
    expect(paused.data.map((j) => j.id)).toEqual([ids[0]]);
    expect(await caller.call(t, 'scheduler.jobs.list', { query: { limit: 5, cursor: 'garbage!' } })).toMatchObject({
      ok: false,
      error: { code: 'invalid_parameter' },
    });

    expect(await caller.ok(t, 'scheduler.jobs.usage', { pipeline_id: p1.id })).toEqual({ jobs: 3 });
    expect(await caller.ok(newTenant(), 'scheduler.jobs.usage', { pipeline_id: p1.id })).toEqual({ jobs: 0 });
  });

  it('pause clears the next fire, resume sets it from now; next_run_at and upcoming_runs_at follow', async () => {
    const t = newTenant();
    const job = await caller.ok<Job>(t, 'scheduler.jobs.create', {
      body: { name: 'every5', pipeline_id: store.add(t).id, schedule: '*/5 * * * *', timezone: 'America/New_York' },
    });
    expect(await nextFireAt(job.id)).toBe(job.next_run_at);
    // The next five, each the scheduler's next fire after the one before; the same in the list.
    expect(job.upcoming_runs_at).toEqual(
      upcomingFireTimes('*/5 * * * *', 'America/New_York', new Date(Date.parse(job.next_run_at!) - 1), 5).map((d) =>
        d.toISOString(),
      ),
    );
    const listed = await caller.ok<Page<Job>>(t, 'scheduler.jobs.list', { query: { limit: 10 } });
    const inList = listed.data.find((j) => j.id === job.id)!;
    expect(inList.upcoming_runs_at).toHaveLength(5);
    expect(inList.upcoming_runs_at[0]).toBe(inList.next_run_at);
    const paused = await caller.ok<Job>(t, 'scheduler.jobs.pause', { id: job.id });
    expect(paused).toMatchObject({ status: 'paused', next_run_at: null, upcoming_runs_at: [] });
    expect(await nextFireAt(job.id)).toBeNull();
    const resumed = await caller.ok<Job>(t, 'scheduler.jobs.resume', { id: job.id });
    expect(resumed.status).toBe('active');
    expect(resumed.next_run_at).not.toBeNull();
    expect(await nextFireAt(job.id)).toBe(resumed.next_run_at);
    // A job without a schedule never fires by itself.
    const manual = await caller.ok<Job>(t, 'scheduler.jobs.create', {
      body: { name: 'manual', pipeline_id: store.add(t).id },
    });
    expect(manual).toMatchObject({ next_run_at: null, upcoming_runs_at: [] });
    expect(await nextFireAt(manual.id)).toBeNull();
  });

  it('an update that keeps the schedule keeps the next fire, one that changes it fires from now', async () => {
    const t = newTenant();
    const pipeline = store.add(t);
    const job = await caller.ok<Job>(t, 'scheduler.jobs.create', {
      body: { name: 'kept', pipeline_id: pipeline.id, schedule: '*/5 * * * *' },
    });
    // A fire that is due this very moment (not yet made by the clock, which is off here) must survive an unrelated edit.
    const due = new Date(Date.now() - 1000);
    await suite.ds.query(`UPDATE jobs SET next_fire_at = $2 WHERE id = $1`, [job.id, due]);
    await caller.ok(t, 'scheduler.jobs.update', {
      id: job.id,
      body: { name: 'renamed', pipeline_id: pipeline.id, schedule: '*/5 * * * *' },
    });
    expect(await nextFireAt(job.id)).toBe(due.toISOString());
    await caller.ok(t, 'scheduler.jobs.update', {
      id: job.id,
      body: { name: 'renamed', pipeline_id: pipeline.id, schedule: '0 3 * * *' },
    });
    expect(await nextFireAt(job.id)).toBe(nextFireTime('0 3 * * *', 'UTC', new Date())!.toISOString());
  });

  it('delete cancels the active runs first', async () => {
    const t = newTenant();
    const job = await caller.ok<Job>(t, 'scheduler.jobs.create', {
      body: { name: 'doomed', pipeline_id: store.add(t).id, concurrency_policy: 'allow' },
    });
    const run = await caller.ok<Run>(t, 'scheduler.runs.trigger', { job_id: job.id, body: {} });
    await waitFor(() => runsQueue.getJob(run.id), { what: 'the run command enqueued' });
    await caller.ok(t, 'scheduler.jobs.delete', { id: job.id });
    // The canceled run's queue job is gone before any executor took it.
    await waitFor(async () => (await runsQueue.getJob(run.id)) === undefined, { what: 'the queue job removed' });
    const [row] = await suite.ds.query<{ type: string | null }[]>(
      `SELECT payload->>'type' AS type FROM outbox WHERE run_id = $1 ORDER BY id`,
      [run.id],
    );
    expect(row).toBeDefined();
    const types = (
      await suite.ds.query<{ type: string }[]>(
        `SELECT payload->>'type' AS type FROM outbox WHERE run_id = $1 AND kind = 'run_event' ORDER BY id`,
        [run.id],
      )
    ).map((r) => r.type);
    expect(types).toEqual(['run.queued', 'run.canceled']);
  });

  it('has a handler for every scheduler pattern of the contract', async () => {
    const patterns = rpcPatterns.filter((p) => p.startsWith('scheduler.'));
    expect(patterns.length).toBe(18);
    for (const pattern of patterns) {
      const reply = await caller.call<unknown>(newTenant(), pattern, {});
      expect(reply).toMatchObject({ ok: false, error: { code: 'validation_failed' } });
    }
  });
});
