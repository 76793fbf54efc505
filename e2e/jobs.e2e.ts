import { randomUUID } from 'node:crypto';
import type { Job, Page, Pipeline, Run, ProblemDocument } from '@conduit/contracts';
import { call, expectProblem } from './support/client.js';
import {
  RFC3339_MS,
  create,
  createPipelineAndJob,
  listAll,
  mintToken,
  triggerRun,
  uniqueName,
  waitFor,
  waitForRunEnd,
} from './support/helpers.js';
import { useTargetStack } from './support/target-stack.js';

// Jobs and their runs through the gateway, against api.md (Resources > Job and Run; Lists; Idempotency).
// Polling runs adds up to many requests a minute; the rate limit has its own tests.
const target = useTargetStack({ env: { RATE_LIMIT_PER_MINUTE: '100000' }, timeoutMs: 60_000 });
/** A valid pipeline most jobs here use; no job of this file makes it run long. */
let pipelineId: string;
/** Created first, checked last: a job on `* * * * *` must fire by itself within the next minute. */
let cronJob: Job;
let pausedCronJob: Job;

const JOB_FIELDS = [
  'concurrency_policy',
  'created_at',
  'description',
  'id',
  'last_run',
  'name',
  'next_run_at',
  'parameters',
  'pipeline_id',
  'schedule',
  'status',
  'timezone',
  'upcoming_runs_at',
  'updated_at',
];
const RUN_FIELDS = [
  'attempt',
  'duration_ms',
  'error',
  'finished_at',
  'id',
  'job_id',
  'nodes',
  'parameters',
  'pipeline_id',
  'pipeline_version',
  'queued_at',
  'started_at',
  'stats',
  'status',
  'trigger',
];

function quickDag(): Record<string, unknown> {
  return {
    nodes: [
      { id: 'one', type: 'source', config: { connector_id: target.connectorId, query: 'select 1 as n' } },
      { id: 'same', type: 'transform', config: { sql: 'select n from one' } },
    ],
    edges: [{ from: 'one', to: 'same' }],
  };
}

beforeAll(async () => {
  pipelineId = (await create(target.stack, '/v2/pipelines', { name: uniqueName('quick'), dag: quickDag() })).id;
  cronJob = await create<Job>(target.stack, '/v2/jobs', {
    name: uniqueName('every-minute'),
    pipeline_id: pipelineId,
    schedule: '* * * * *',
  });
  pausedCronJob = await create<Job>(target.stack, '/v2/jobs', {
    name: uniqueName('paused-minute'),
    pipeline_id: pipelineId,
    schedule: '* * * * *',
  });
  expect((await call(target.stack, 'POST', `/v2/jobs/${pausedCronJob.id}/pause`)).status).toBe(200);
}, 60_000);

describe('job CRUD', () => {
  it('creates: 201, Location, ETag, every field, next_run_at from the schedule in its time zone', async () => {
    const name = uniqueName('nightly');
    const res = await call<Job>(target.stack, 'POST', '/v2/jobs', {
      body: {
        name,
        pipeline_id: pipelineId,
        schedule: '30 2 * * *',
        timezone: 'Asia/Kolkata',
        parameters: { region: 'eu' },
      },
    });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(JOB_FIELDS);
    expect(res.body).toMatchObject({
      name,
      description: null,
      pipeline_id: pipelineId,
      schedule: '30 2 * * *',
      timezone: 'Asia/Kolkata',
      status: 'active',
      concurrency_policy: 'forbid',
      parameters: { region: 'eu' },
      last_run: null,
    });
    expect(res.body.id).toMatch(/^job_/);
    expect(res.headers.get('location')).toBe(`/v2/jobs/${res.body.id}`);
    expect(res.headers.get('etag')).toBeTruthy();
    for (const field of ['created_at', 'updated_at', 'next_run_at'] as const)
      expect(res.body[field]).toMatch(RFC3339_MS);
    // 02:30 in Kolkata (UTC+05:30) is 21:00 UTC, within the next day.
    const next = new Date(res.body.next_run_at!);
    expect([next.getUTCHours(), next.getUTCMinutes(), next.getUTCSeconds(), next.getUTCMilliseconds()]).toEqual([
      21, 0, 0, 0,
    ]);
    expect(next.getTime() - Date.now()).toBeGreaterThan(0);
    expect(next.getTime() - Date.now()).toBeLessThanOrEqual(24 * 3600_000);

    const got = await call<Job>(target.stack, 'GET', `/v2/jobs/${res.body.id}`);
    expect(got.status).toBe(200);
    expect(got.body).toEqual(res.body);
    expect(got.headers.get('etag')).toBe(res.headers.get('etag'));
  });

  it('a job without a schedule runs only by hand: next_run_at null', async () => {
    const job = await create<Job>(target.stack, '/v2/jobs', { name: uniqueName('manual'), pipeline_id: pipelineId });
    expect(job).toMatchObject({ schedule: null, timezone: 'UTC', next_run_at: null, parameters: {} });
    const explicit = await create<Job>(target.stack, '/v2/jobs', {
      name: uniqueName('manual'),
      pipeline_id: pipelineId,
      schedule: null,
    });
    expect(explicit.schedule).toBeNull();
  });

  it('updates with If-Match (200, new ETag); a stale ETag is a 412 and changes nothing', async () => {
    const created = await call<Job>(target.stack, 'POST', '/v2/jobs', {
      body: { name: uniqueName('upd'), pipeline_id: pipelineId, schedule: '0 * * * *' },
    });
    const etag = created.headers.get('etag')!;
    const body = {
      name: created.body.name,
      pipeline_id: pipelineId,
      schedule: '*/15 * * * *',
      concurrency_policy: 'replace',
      description: 'quarterly',
    };
    const updated = await call<Job>(target.stack, 'PUT', `/v2/jobs/${created.body.id}`, {
      body,
      headers: { 'if-match': etag },
    });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({
      ...body,
      id: created.body.id,
      created_at: created.body.created_at,
      timezone: 'UTC',
    });
    expect(new Date(updated.body.next_run_at!).getUTCMinutes() % 15).toBe(0);
    expect(updated.headers.get('etag')).toBeTruthy();
    expect(updated.headers.get('etag')).not.toBe(etag);

    const stale = await call<Job>(target.stack, 'PUT', `/v2/jobs/${created.body.id}`, {
      body: { ...body, schedule: '5 5 * * *' },
      headers: { 'if-match': etag },
    });
    expectProblem(stale, 412, 'precondition_failed');
    expect((await call<Job>(target.stack, 'GET', `/v2/jobs/${created.body.id}`)).body.schedule).toBe('*/15 * * * *');
  });

  it('pauses (next_run_at null) and resumes (next_run_at back); both are idempotent', async () => {
    const job = await create<Job>(target.stack, '/v2/jobs', {
      name: uniqueName('pause'),
      pipeline_id: pipelineId,
      schedule: '0 12 * * MON-FRI',
    });
    expect(job.next_run_at).toMatch(RFC3339_MS);
    const paused = await call<Job>(target.stack, 'POST', `/v2/jobs/${job.id}/pause`);
    expect(paused.status).toBe(200);
    expect(paused.body).toMatchObject({ id: job.id, status: 'paused', next_run_at: null, upcoming_runs_at: [] });
    expect((await call<Job>(target.stack, 'POST', `/v2/jobs/${job.id}/pause`)).body.status).toBe('paused');
    const paging = await listAll<Job>(target.stack, `/v2/jobs?status=paused`);
    expect(paging.map((j) => j.id)).toContain(job.id);
    expect(paging.every((j) => j.status === 'paused')).toBe(true);
    // A paused job still runs by hand.
    expect((await waitForRunEnd(target.stack, job.id, (await triggerRun(target.stack, job.id)).id)).status).toBe(
      'succeeded',
    );

    const resumed = await call<Job>(target.stack, 'POST', `/v2/jobs/${job.id}/resume`);
    expect(resumed.status).toBe(200);
    expect(resumed.body).toMatchObject({ status: 'active', next_run_at: job.next_run_at });
  });

  it("upcoming_runs_at: the next five fire times, the first next_run_at, each at the schedule's time in its zone", async () => {
    const job = await create<Job>(target.stack, '/v2/jobs', {
      name: uniqueName('berlin'),
      pipeline_id: pipelineId,
      schedule: '30 2 * * *',
      timezone: 'Europe/Berlin',
    });
    const times = job.upcoming_runs_at;
    expect(times).toHaveLength(5);
    expect(times[0]).toBe(job.next_run_at);
    const berlin = new Intl.DateTimeFormat('en-GB', {
      timeZone: 'Europe/Berlin',
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
    });
    const days = new Set<string>();
    for (const [i, at] of times.entries()) {
      expect(at).toMatch(RFC3339_MS);
      if (i > 0) expect(Date.parse(at)).toBeGreaterThan(Date.parse(times[i - 1]!));
      const [day, clock] = berlin.format(new Date(at)).split(', ');
      days.add(day!);
      // 02:30 Berlin time; on the day of the spring-forward change, when 02:30 does not exist, 03:00.
      expect(['02:30', '03:00']).toContain(clock);
    }
    expect(days.size).toBe(5); // one a day, whatever daylight saving does
    const listed = await listAll<Job>(target.stack, `/v2/jobs?pipeline_id=${pipelineId}`);
    expect(listed.find((j) => j.id === job.id)?.upcoming_runs_at).toEqual(times);
    const manual = await create<Job>(target.stack, '/v2/jobs', {
      name: uniqueName('by-hand'),
      pipeline_id: pipelineId,
    });
    expect(manual.upcoming_runs_at).toEqual([]);
  });

  it('lists by pipeline_id, newest first; an unknown filter value is a 400', async () => {
    const other = (await create(target.stack, '/v2/pipelines', { name: uniqueName('other'), dag: quickDag() })).id;
    const a = await create<Job>(target.stack, '/v2/jobs', { name: uniqueName('a'), pipeline_id: other });
    const b = await create<Job>(target.stack, '/v2/jobs', { name: uniqueName('b'), pipeline_id: other });
    const listed = await call<{ data: Job[]; next_cursor: string | null }>(
      target.stack,
      'GET',
      `/v2/jobs?pipeline_id=${other}`,
    );
    expect(listed.status).toBe(200);
    expect(listed.body).toEqual({
      data: [expect.objectContaining({ id: b.id }), expect.objectContaining({ id: a.id })],
      next_cursor: null,
    });
    expectProblem(await call<Page<Job>>(target.stack, 'GET', '/v2/jobs?status=sleeping'), 400, 'invalid_parameter');
  });

  it('deletes with 204; then the job and its runs are 404s', async () => {
    const { jobId } = await createPipelineAndJob(target.stack, quickDag());
    const run = await waitForRunEnd(target.stack, jobId, (await triggerRun(target.stack, jobId)).id);
    const res = await call(target.stack, 'DELETE', `/v2/jobs/${jobId}`);
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    expectProblem(await call<Job>(target.stack, 'GET', `/v2/jobs/${jobId}`), 404, 'not_found');
    expectProblem(await call<Page<Run>>(target.stack, 'GET', `/v2/jobs/${jobId}/runs`), 404, 'not_found');
    expectProblem(await call<Run>(target.stack, 'GET', `/v2/jobs/${jobId}/runs/${run.id}`), 404, 'not_found');
    expectProblem(await call<Run>(target.stack, 'POST', `/v2/jobs/${jobId}/run`), 404, 'not_found');
    expectProblem(await call(target.stack, 'DELETE', `/v2/jobs/${jobId}`), 404, 'not_found');
  });
});

describe('bad input: a 422 naming the field, and nothing created', () => {
  // Every row has four cells: jest takes a callback with more parameters than cells for a `done` callback.
  const cases: Array<[string, Record<string, unknown>, string, RegExp | null]> = [
    ['six fields', { schedule: '0 * * * * *' }, 'schedule', /expected 5 fields/],
    ['minute 60', { schedule: '60 * * * *' }, 'schedule', /minute/],
    ['step */0', { schedule: '*/0 * * * *' }, 'schedule', /step/],
    ['an empty schedule', { schedule: '' }, 'schedule', null],
    ['an unknown time zone', { timezone: 'Mars/Olympus_Mons' }, 'timezone', null],
    ['parameters as an array', { parameters: [1, 2] }, 'parameters', null],
    ['parameters as a string', { parameters: 'region=eu' }, 'parameters', null],
    ['an unknown concurrency policy', { concurrency_policy: 'sometimes' }, 'concurrency_policy', null],
    ['an unknown field', { shedule: '* * * * *' }, 'shedule', null],
  ];

  it.each(cases)('%s', async (_what, fields, path, message) => {
    const name = uniqueName('bad');
    const res = await call<ProblemDocument>(target.stack, 'POST', '/v2/jobs', {
      body: { name, pipeline_id: pipelineId, ...fields },
    });
    expectProblem(res, 422, 'validation_failed');
    const fault = (res.body.errors ?? []).find((e: { path: string }) => e.path === path);
    expect(fault).toBeDefined();
    if (path === 'schedule') expect(fault?.code).toBe('invalid_cron');
    if (message) expect(fault?.message).toMatch(message);
    expect((await listAll<Job>(target.stack, '/v2/jobs')).some((j) => j.name === name)).toBe(false);
  });

  it('lists every field at fault at once', async () => {
    const res = await call<ProblemDocument>(target.stack, 'POST', '/v2/jobs', {
      body: {
        name: uniqueName('bad'),
        pipeline_id: pipelineId,
        schedule: '61 * * * *',
        timezone: 'Nowhere/City',
        parameters: 3,
      },
    });
    expectProblem(res, 422, 'validation_failed');
    expect((res.body.errors ?? []).map((e: { path: string }) => e.path).sort()).toEqual([
      'parameters',
      'schedule',
      'timezone',
    ]);
  });

  it("another tenant's pipeline is a 422 unknown_pipeline, as is an unknown one", async () => {
    const bearer = await mintToken(target.stack, { tenant_id: `ten_${uniqueName('other')}` });
    const theirs = await call<Pipeline>(target.stack, 'POST', '/v2/pipelines', {
      bearer,
      body: { name: uniqueName('theirs'), dag: quickDag() },
    });
    expect(theirs.status).toBe(201);
    for (const pipeline of [theirs.body.id, 'pln_01J00000000000000000000000']) {
      const name = uniqueName('stolen');
      const res = await call<ProblemDocument>(target.stack, 'POST', '/v2/jobs', {
        body: { name, pipeline_id: pipeline },
      });
      expectProblem(res, 422, 'unknown_pipeline');
      expect((res.body.errors ?? []).map((e: { path: string }) => e.path)).toEqual(['pipeline_id']);
      expect((await listAll<Job>(target.stack, '/v2/jobs')).some((j) => j.name === name)).toBe(false);
    }
    // Their job list does not show ours, and ours cannot be reached with their credential.
    expect((await listAll<Job>(target.stack, '/v2/jobs', { bearer })).length).toBe(0);
    expectProblem(await call<Job>(target.stack, 'GET', `/v2/jobs/${cronJob.id}`, { bearer }), 404, 'not_found');
    expectProblem(await call<Run>(target.stack, 'POST', `/v2/jobs/${cronJob.id}/run`, { bearer }), 404, 'not_found');
  });

  it('Trigger Run refuses parameters that are not an object, and makes no run', async () => {
    const job = await create<Job>(target.stack, '/v2/jobs', { name: uniqueName('params'), pipeline_id: pipelineId });
    for (const parameters of [[1], 'x', 7]) {
      const res = await call<ProblemDocument>(target.stack, 'POST', `/v2/jobs/${job.id}/run`, { body: { parameters } });
      expectProblem(res, 422, 'validation_failed');
      expect((res.body.errors ?? []).map((e: { path: string }) => e.path)).toEqual(['parameters']);
    }
    expect((await call<{ data: Run[] }>(target.stack, 'GET', `/v2/jobs/${job.id}/runs`)).body.data).toEqual([]);
  });
});

describe('Trigger Run and the runs of a job', () => {
  it('answers 202 with the queued run and a Location that leads to it; parameters merge over the job defaults', async () => {
    const job = await create<Job>(target.stack, '/v2/jobs', {
      name: uniqueName('trig'),
      pipeline_id: pipelineId,
      parameters: { region: 'eu', day: '1' },
    });
    const res = await call<Run>(target.stack, 'POST', `/v2/jobs/${job.id}/run`, { body: { parameters: { day: '2' } } });
    expect(res.status).toBe(202);
    expect(Object.keys(res.body).sort()).toEqual(RUN_FIELDS);
    expect(res.body).toMatchObject({
      job_id: job.id,
      pipeline_id: pipelineId,
      pipeline_version: 1,
      status: 'queued',
      trigger: 'manual',
      parameters: { region: 'eu', day: '2' },
      attempt: 1,
      started_at: null,
      finished_at: null,
      duration_ms: null,
      error: null,
      stats: { rows_read: 0, rows_written: 0 },
    });
    expect(res.body.id).toMatch(/^run_/);
    expect(res.body.queued_at).toMatch(RFC3339_MS);
    expect(res.body.nodes.map((n) => [n.id, n.type, n.status])).toEqual([
      ['one', 'source', 'pending'],
      ['same', 'transform', 'pending'],
    ]);
    expect(res.headers.get('location')).toBe(`/v2/jobs/${job.id}/runs/${res.body.id}`);

    const run = await waitForRunEnd(target.stack, job.id, res.body.id);
    expect(run.status).toBe('succeeded');
    const viaLocation = await call<Run>(target.stack, 'GET', res.headers.get('location')!);
    expect(viaLocation.body).toEqual(run);
    const after = await call<Job>(target.stack, 'GET', `/v2/jobs/${job.id}`);
    expect(after.body.last_run).toEqual({
      id: run.id,
      status: 'succeeded',
      trigger: 'manual',
      queued_at: run.queued_at,
      finished_at: run.finished_at,
    });
  });

  it('replays a trigger with the same Idempotency-Key: the same run, no second one', async () => {
    const job = await create<Job>(target.stack, '/v2/jobs', {
      name: uniqueName('idem'),
      pipeline_id: pipelineId,
      concurrency_policy: 'allow',
    });
    const headers = { 'idempotency-key': `trigger-${job.id}` };
    const first = await call<Run>(target.stack, 'POST', `/v2/jobs/${job.id}/run`, {
      body: { parameters: { a: 1 } },
      headers,
    });
    expect(first.status).toBe(202);
    const again = await call<Run>(target.stack, 'POST', `/v2/jobs/${job.id}/run`, {
      body: { parameters: { a: 1 } },
      headers,
    });
    expect(again.status).toBe(202);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body.id).toBe(first.body.id);
    expect(again.headers.get('location')).toBe(first.headers.get('location'));
    expectProblem(
      await call<Run>(target.stack, 'POST', `/v2/jobs/${job.id}/run`, { body: { parameters: { a: 2 } }, headers }),
      422,
      'idempotency_key_reused',
    );
    await waitForRunEnd(target.stack, job.id, first.body.id);
    expect((await listAll<Run>(target.stack, `/v2/jobs/${job.id}/runs`)).map((r) => r.id)).toEqual([first.body.id]);
  });

  it('keeps an Idempotency-Key per kind of resource; a trigger without a body is the same request as {}', async () => {
    const headers = { 'idempotency-key': `kinds-${randomUUID()}` };
    const project = await call<{ id: string }>(target.stack, 'POST', '/v2/projects', {
      body: { name: uniqueName('idem-kind') },
      headers,
    });
    expect(project.status).toBe(201);
    const pipeline = await call<{ id: string }>(target.stack, 'POST', '/v2/pipelines', {
      body: { name: uniqueName('idem-kind'), dag: { nodes: [], edges: [] } },
      headers,
    });
    expect(pipeline.status).toBe(201);
    expect(pipeline.headers.get('idempotent-replayed')).toBeNull();
    expect(pipeline.body.id).toMatch(/^pln_/);

    const job = await create<Job>(target.stack, '/v2/jobs', {
      name: uniqueName('idem-body'),
      pipeline_id: pipelineId,
      concurrency_policy: 'allow',
    });
    const first = await call<Run>(target.stack, 'POST', `/v2/jobs/${job.id}/run`, { headers });
    expect(first.status).toBe(202);
    const again = await call<Run>(target.stack, 'POST', `/v2/jobs/${job.id}/run`, { body: {}, headers });
    expect(again.status).toBe(202);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body.id).toBe(first.body.id);
    // The same kind (a run) through another job's trigger is another request under the same key.
    const other = await create<Job>(target.stack, '/v2/jobs', {
      name: uniqueName('idem-other'),
      pipeline_id: pipelineId,
      concurrency_policy: 'allow',
    });
    expectProblem(
      await call<Run>(target.stack, 'POST', `/v2/jobs/${other.id}/run`, { headers }),
      422,
      'idempotency_key_reused',
    );
    await waitForRunEnd(target.stack, job.id, first.body.id);
  });

  it('lists runs newest first, page by page, with no run skipped or repeated; filters by status', async () => {
    const job = await create<Job>(target.stack, '/v2/jobs', {
      name: uniqueName('paging'),
      pipeline_id: pipelineId,
      concurrency_policy: 'allow',
    });
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await triggerRun(target.stack, job.id)).id);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { status: number; body: { data: Run[]; next_cursor: string | null } } = await call<Page<Run>>(
        target.stack,
        'GET',
        `/v2/jobs/${job.id}/runs?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      );
      expect(page.status).toBe(200);
      expect(page.body.data.length).toBeLessThanOrEqual(2);
      seen.push(...page.body.data.map((r) => r.id));
      cursor = page.body.next_cursor;
    } while (cursor);
    expect(seen).toEqual([...ids].reverse());

    for (const id of ids) await waitForRunEnd(target.stack, job.id, id);
    const succeeded = await call<{ data: Run[] }>(target.stack, 'GET', `/v2/jobs/${job.id}/runs?status=succeeded`);
    expect(succeeded.body.data.map((r) => r.id)).toEqual([...ids].reverse());
    expect(
      (await call<{ data: Run[] }>(target.stack, 'GET', `/v2/jobs/${job.id}/runs?status=failed`)).body.data,
    ).toEqual([]);
    expectProblem(
      await call<Page<Run>>(target.stack, 'GET', `/v2/jobs/${job.id}/runs?status=done`),
      400,
      'invalid_parameter',
    );
    expectProblem(
      await call<Page<Run>>(target.stack, 'GET', `/v2/jobs/${job.id}/runs?limit=0`),
      400,
      'invalid_parameter',
    );
    expectProblem(
      await call<Page<Run>>(target.stack, 'GET', `/v2/jobs/${job.id}/runs?cursor=garbage`),
      400,
      'invalid_parameter',
    );
  });

  it('Get Run Status is a 404 for an unknown run, a malformed id, a run of another job and an unknown job', async () => {
    const job = await create<Job>(target.stack, '/v2/jobs', { name: uniqueName('404'), pipeline_id: pipelineId });
    const otherJob = await create<Job>(target.stack, '/v2/jobs', { name: uniqueName('404b'), pipeline_id: pipelineId });
    const run = await triggerRun(target.stack, job.id);
    expect((await call<Run>(target.stack, 'GET', `/v2/jobs/${job.id}/runs/${run.id}`)).status).toBe(200);
    expectProblem(
      await call(target.stack, 'GET', `/v2/jobs/${job.id}/runs/run_01J00000000000000000000000`),
      404,
      'not_found',
    );
    expectProblem(await call(target.stack, 'GET', `/v2/jobs/${job.id}/runs/not-a-run-id`), 404, 'not_found');
    expectProblem(await call<Run>(target.stack, 'GET', `/v2/jobs/${otherJob.id}/runs/${run.id}`), 404, 'not_found');
    expectProblem(
      await call(target.stack, 'GET', `/v2/jobs/job_01J00000000000000000000000/runs/${run.id}`),
      404,
      'not_found',
    );
    expectProblem(
      await call<Run>(target.stack, 'POST', `/v2/jobs/${otherJob.id}/runs/${run.id}/cancel`),
      404,
      'not_found',
    );
    await waitForRunEnd(target.stack, job.id, run.id);
  });
});

describe('jobs and their pipelines', () => {
  it('deleting a pipeline a job uses is a 409 pipeline_in_use; once the job is gone it is a 204', async () => {
    const { jobId, pipelineId: used } = await createPipelineAndJob(target.stack, quickDag());
    expectProblem(await call(target.stack, 'DELETE', `/v2/pipelines/${used}`), 409, 'pipeline_in_use');
    expect((await call<Pipeline>(target.stack, 'GET', `/v2/pipelines/${used}`)).status).toBe(200);
    expect((await call(target.stack, 'DELETE', `/v2/jobs/${jobId}`)).status).toBe(204);
    expect((await call(target.stack, 'DELETE', `/v2/pipelines/${used}`)).status).toBe(204);
  });

  it('triggering a job whose pipeline no longer validates is a 409 pipeline_invalid, and makes no run', async () => {
    const { jobId, pipelineId: broken } = await createPipelineAndJob(target.stack, quickDag());
    const pipeline = await call<Pipeline>(target.stack, 'GET', `/v2/pipelines/${broken}`);
    const dag = { nodes: [{ id: 'lonely', type: 'transform', config: { sql: 'select 1' } }], edges: [] };
    const updated = await call<Pipeline>(target.stack, 'PUT', `/v2/pipelines/${broken}`, {
      body: { name: pipeline.body.name, dag },
    });
    expect(updated.body.status).toBe('invalid');
    const res = await call<Run>(target.stack, 'POST', `/v2/jobs/${jobId}/run`);
    expectProblem(res, 409, 'pipeline_invalid');
    expect((await call<{ data: Run[] }>(target.stack, 'GET', `/v2/jobs/${jobId}/runs`)).body.data).toEqual([]);

    // Fixed, the job runs the new version.
    await call<Pipeline>(target.stack, 'PUT', `/v2/pipelines/${broken}`, {
      body: { name: pipeline.body.name, dag: quickDag() },
    });
    const run = await waitForRunEnd(target.stack, jobId, (await triggerRun(target.stack, jobId)).id);
    expect(run).toMatchObject({ status: 'succeeded', pipeline_version: 3 });
  });
});

describe('schedules', () => {
  it('a job on `* * * * *` fires by itself within the next minute (trigger schedule); a paused one does not', async () => {
    // The jobs were made in beforeAll, so this wait overlaps the tests above.
    const firstDue = Date.parse(cronJob.next_run_at!);
    expect(firstDue % 60_000).toBe(0);
    expect(firstDue - Date.parse(cronJob.created_at)).toBeLessThanOrEqual(60_000);
    let scheduled: Run | undefined;
    await waitFor(
      async () => {
        const runs = await call<{ data: Run[] }>(target.stack, 'GET', `/v2/jobs/${cronJob.id}/runs`);
        scheduled = runs.body.data.find((r) => r.trigger === 'schedule');
        return scheduled !== undefined;
      },
      {
        what: 'a scheduled run of the every-minute job',
        timeoutMs: Math.max(5_000, firstDue + 15_000 - Date.now()),
        intervalMs: 500,
      },
    );
    expect(Date.parse(scheduled!.queued_at)).toBeGreaterThanOrEqual(firstDue);
    const run = await waitForRunEnd(target.stack, cronJob.id, scheduled!.id);
    expect(run).toMatchObject({ status: 'succeeded', trigger: 'schedule' });
    const job = await call<Job>(target.stack, 'GET', `/v2/jobs/${cronJob.id}`);
    expect(job.body.last_run?.trigger).toBe('schedule');
    expect(Date.parse(job.body.next_run_at!)).toBeGreaterThan(firstDue);
    expect((await call<{ data: Run[] }>(target.stack, 'GET', `/v2/jobs/${pausedCronJob.id}/runs`)).body.data).toEqual(
      [],
    );
  }, 90_000);
});
