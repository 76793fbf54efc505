import { describe, expect, it } from '@jest/globals';
import { PARAMETERS_MAX_BYTES, QUEUES, type Job, type Page, type Run } from '@conduit/contracts';
import { PAGE_BYTES, newId } from '@conduit/service-kit';
import { useSchedulerSuite } from './support/scheduler-suite.js';
import { newTenant } from './support/db.js';
import { JobsService } from '../src/jobs/jobs.service.js';
import { RunsService } from '../src/runs/runs.service.js';

const suite = useSchedulerSuite({ scheduler: { background: { ticks: false } }, queues: [QUEUES.runs] });
const { caller, store } = suite;

/** Parameters of exactly `bytes` bytes as JSON text. */
function parametersOf(bytes: number): Record<string, string> {
  return { blob: 'x'.repeat(bytes - '{"blob":""}'.length) };
}

function newJob(t: string, body: Record<string, unknown> = {}): Promise<Job> {
  return caller.ok<Job>(t, 'scheduler.jobs.create', {
    body: { name: `job ${newId('job')}`, pipeline_id: store.add(t).id, concurrency_policy: 'allow', ...body },
  });
}

/** Every page of a list, in order, as the ids each held. */
async function pages<T extends { id: string }>(list: (cursor?: string) => Promise<Page<T>>): Promise<string[][]> {
  const seen: string[][] = [];
  let cursor: string | undefined;
  do {
    const page = await list(cursor);
    seen.push(page.data.map((item) => item.id));
    cursor = page.next_cursor ?? undefined;
  } while (cursor);
  return seen;
}

describe('parameters', () => {
  it('are at most 64 KiB as JSON text on a job and on a trigger: more is a 422 naming the field, changing nothing', async () => {
    const t = newTenant();
    const job = await newJob(t, { parameters: parametersOf(PARAMETERS_MAX_BYTES) });
    expect(JSON.stringify(job.parameters)).toHaveLength(PARAMETERS_MAX_BYTES);
    const tooLong = {
      ok: false,
      error: {
        code: 'validation_failed',
        errors: [
          expect.objectContaining({ path: expect.stringMatching(/(^|\.)parameters$/), code: 'too_long' }) as unknown,
        ],
      },
    };
    const over = parametersOf(PARAMETERS_MAX_BYTES + 1);
    // A multi-byte character counts as its UTF-8 bytes.
    const wide = { blob: 'é'.repeat(PARAMETERS_MAX_BYTES / 2) };
    for (const parameters of [over, wide]) {
      expect(
        await caller.call(t, 'scheduler.jobs.create', {
          body: { name: 'big', pipeline_id: job.pipeline_id, parameters },
        }),
      ).toMatchObject(tooLong);
      expect(
        await caller.call(t, 'scheduler.jobs.update', {
          id: job.id,
          body: { name: job.name, pipeline_id: job.pipeline_id, parameters },
        }),
      ).toMatchObject(tooLong);
      expect(await caller.call(t, 'scheduler.runs.trigger', { job_id: job.id, body: { parameters } })).toMatchObject(
        tooLong,
      );
    }
    const reply = await caller.call(t, 'scheduler.jobs.create', {
      body: { name: 'big', pipeline_id: job.pipeline_id, parameters: over },
    });
    expect(JSON.stringify(reply)).toContain(`at most ${PARAMETERS_MAX_BYTES} bytes`);
    // Nothing changed: no job made, the job as it was, no run.
    const jobs = await caller.ok<Page<Job>>(t, 'scheduler.jobs.list', { query: { limit: 10 } });
    expect(jobs.data.map((j) => j.id)).toEqual([job.id]);
    expect(await caller.ok<Job>(t, 'scheduler.jobs.get', { id: job.id })).toMatchObject({
      parameters: job.parameters,
      updated_at: job.updated_at,
    });
    expect((await caller.ok<Page<Run>>(t, 'scheduler.runs.list', { job_id: job.id, query: {} })).data).toEqual([]);
    // A trigger's own 64 KiB over the job's: the run holds both.
    const run = await caller.ok<Run>(t, 'scheduler.runs.trigger', {
      job_id: job.id,
      body: { parameters: { other: 'y'.repeat(PARAMETERS_MAX_BYTES - '{"other":""}'.length) } },
    });
    expect(Object.keys(run.parameters).sort()).toEqual(['blob', 'other']);
  });
});

describe('a page of jobs', () => {
  it('holds at most its bytes of parameters (its first job whatever its size), then a cursor', async () => {
    const t = newTenant();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.unshift((await newJob(t, { parameters: parametersOf(20_000) })).id);
    const run = await caller.ok<Run>(t, 'scheduler.runs.trigger', { job_id: ids[0], body: {} });
    const jobs = suite.scheduler.app.get(JobsService);
    // Each is 20 KB of parameters: two fit in 50 KB, and the next pages take up the rest in order.
    const seen = await pages((cursor) => jobs.list(t, { limit: 50, ...(cursor ? { cursor } : {}) }, 50_000));
    expect(seen).toEqual([ids.slice(0, 2), ids.slice(2, 4), ids.slice(4)]);
    // A page smaller than one job still answers that one, with its last run.
    const one = await jobs.list(t, { limit: 50 }, 1);
    expect(one.data.map((j) => j.id)).toEqual([ids[0]]);
    expect(one.data[0]!.last_run).toMatchObject({ id: run.id, status: 'queued', trigger: 'manual' });
    // Within the bytes, the limit decides as before; the filters hold on every page.
    const two = await caller.ok<Page<Job>>(t, 'scheduler.jobs.list', { query: { limit: 2 } });
    expect(two.data.map((j) => j.id)).toEqual(ids.slice(0, 2));
    expect(two.next_cursor).not.toBeNull();
    await caller.ok(t, 'scheduler.jobs.pause', { id: ids[3] });
    const paused = await pages((cursor) =>
      jobs.list(t, { limit: 50, status: 'paused', ...(cursor ? { cursor } : {}) }, 1),
    );
    expect(paused).toEqual([[ids[3]]]);
  });

  it('stops at 8 MiB over RPC with parameters stored before their bound, and the cursor goes on from there', async () => {
    const t = newTenant();
    const template = await newJob(t);
    // Twelve jobs of ~1 MB of parameters each, written as a scheduler before the bound could have stored them.
    const ids = Array.from({ length: 12 }, () => newId('job')).sort();
    await suite.ds.query(
      `INSERT INTO jobs (id, tenant_id, name, description, pipeline_id, schedule, timezone, status, concurrency_policy, parameters, revision, created_at, updated_at, next_fire_at)
       SELECT s.id, tenant_id, name || s.n, description, pipeline_id, schedule, timezone, status, concurrency_policy,
              jsonb_build_object('blob', repeat('x', 1000000)), 1, created_at, updated_at, NULL
         FROM jobs, unnest($1::text[]) WITH ORDINALITY AS s(id, n) WHERE jobs.id = $2`,
      [ids, template.id],
    );
    const newest = [...ids].reverse();
    const first = await caller.ok<Page<Job>>(t, 'scheduler.jobs.list', { query: { limit: 200 } });
    // 8 of ~1 MB fit in 8 MiB, a ninth would not.
    expect(first.data.map((j) => j.id)).toEqual(newest.slice(0, 8));
    expect(JSON.stringify(first).length).toBeLessThanOrEqual(PAGE_BYTES + 100_000);
    const rest = await caller.ok<Page<Job>>(t, 'scheduler.jobs.list', {
      query: { limit: 200, cursor: first.next_cursor },
    });
    expect(rest.data.map((j) => j.id)).toEqual([...newest.slice(8), template.id]);
    expect(rest.next_cursor).toBeNull();
  });
});

describe('a page of runs', () => {
  it('holds at most its bytes (its first run whatever its size), then a cursor, also with a filter', async () => {
    const t = newTenant();
    const job = await newJob(t);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++)
      ids.unshift(
        (
          await caller.ok<Run>(t, 'scheduler.runs.trigger', {
            job_id: job.id,
            body: { parameters: parametersOf(20_000) },
          })
        ).id,
      );
    const runs = suite.scheduler.app.get(RunsService);
    const seen = await pages((cursor) => runs.list(t, job.id, { limit: 50, ...(cursor ? { cursor } : {}) }, 50_000));
    expect(seen).toEqual([ids.slice(0, 2), ids.slice(2, 4), ids.slice(4)]);
    const queued = await pages((cursor) =>
      runs.list(t, job.id, { limit: 50, status: 'queued', ...(cursor ? { cursor } : {}) }, 1),
    );
    expect(queued).toEqual(ids.map((id) => [id]));
    const two = await caller.ok<Page<Run>>(t, 'scheduler.runs.list', { job_id: job.id, query: { limit: 2 } });
    expect(two.data.map((r) => r.id)).toEqual(ids.slice(0, 2));
    expect(two.next_cursor).not.toBeNull();
    // An unknown job is still a 404, a known one without runs an empty page.
    expect(await caller.call(t, 'scheduler.runs.list', { job_id: newId('job'), query: {} })).toMatchObject({
      ok: false,
      error: { code: 'not_found' },
    });
    const empty = await caller.ok<Page<Run>>(t, 'scheduler.runs.list', {
      job_id: job.id,
      query: { status: 'failed' },
    });
    expect(empty).toEqual({ data: [], next_cursor: null });
  });

  it('stops at 8 MiB over RPC with runs stored before the bound, and the cursor goes on from there', async () => {
    const t = newTenant();
    const job = await newJob(t);
    const ids: string[] = [];
    for (let i = 0; i < 10; i++)
      ids.unshift((await caller.ok<Run>(t, 'scheduler.runs.trigger', { job_id: job.id, body: {} })).id);
    await suite.ds.query(
      `UPDATE runs SET parameters = jsonb_build_object('blob', repeat('x', 1000000)) WHERE job_id = $1`,
      [job.id],
    );
    const first = await caller.ok<Page<Run>>(t, 'scheduler.runs.list', { job_id: job.id, query: { limit: 200 } });
    expect(first.data.map((r) => r.id)).toEqual(ids.slice(0, 8));
    expect(JSON.stringify(first).length).toBeLessThanOrEqual(PAGE_BYTES + 100_000);
    const rest = await caller.ok<Page<Run>>(t, 'scheduler.runs.list', {
      job_id: job.id,
      query: { limit: 200, cursor: first.next_cursor },
    });
    expect(rest.data.map((r) => r.id)).toEqual(ids.slice(8));
    expect(rest.next_cursor).toBeNull();
  });
});
