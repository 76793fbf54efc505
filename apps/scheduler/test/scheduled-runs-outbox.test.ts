import { describe, expect, it } from '@jest/globals';
import { useSchedulerSuite } from './support/scheduler-suite.js';
import { QUEUES, type Job, type Page, type Run } from '@conduit/contracts';
import { newId, unbatchedJobs } from '@conduit/service-kit';
import { RUNS_PER_MESSAGE } from '../src/outbox/scheduled-runs-message.js';
import { ScheduledRuns } from '../src/schedules/scheduled-runs.js';
import { RunReaper } from '../src/reaper/run-reaper.js';
import { newTenant } from './support/db.js';
import { drainOutbox } from './support/outbox.js';

// Nothing in the background: each test makes runs, sweeps and publishes by hand, in the order it checks.
const suite = useSchedulerSuite({
  scheduler: { runSilenceMs: 1_000, background: { relay: false, ticks: false, reaper: false } },
  queues: [QUEUES.runs, QUEUES.eventsMonitoring],
});
const { caller, store, prefix } = suite;
const runsQueue = suite.queue(QUEUES.runs);
const monitoringQueue = suite.queue(QUEUES.eventsMonitoring);

async function newJob(t: string, pipelineId: string, parameters: Record<string, unknown>): Promise<Job> {
  return caller.ok<Job>(t, 'scheduler.jobs.create', {
    body: { name: `outbox-${newId('job')}`, pipeline_id: pipelineId, concurrency_policy: 'allow', parameters },
  });
}

/** Makes the jobs due and fires them through the clock's own path, at once. */
async function fire(jobs: Job[]): Promise<void> {
  const at = new Date();
  await suite.ds.query(`UPDATE jobs SET schedule = '0 0 1 1 *', next_fire_at = $2 WHERE id = ANY($1::text[])`, [
    jobs.map((j) => j.id),
    new Date(at.getTime() - 1000),
  ]);
  const taken = await suite.scheduler.app
    .get(ScheduledRuns)
    .fireDue({ at, limit: 1000, snapshots: new Map(), untilDue: () => Promise.resolve() });
  expect(taken).toBe(jobs.length);
}

async function runsOf(t: string, job: Job, trigger: string): Promise<Run[]> {
  const page = await caller.ok<Page<Run>>(t, 'scheduler.runs.list', { job_id: job.id, query: { limit: 200 } });
  return page.data.filter((r) => r.trigger === trigger);
}

/** The run's row but what differs between two runs made at different times by different triggers. */
async function rowOf(runId: string): Promise<Record<string, unknown>> {
  const [row] = await suite.ds.query<Record<string, unknown>[]>(`SELECT * FROM runs WHERE id = $1`, [runId]);
  const { id, trigger, tick_id, queued_at, last_event_at, ...rest } = row!;
  expect([id, queued_at instanceof Date, last_event_at]).toEqual([runId, true, queued_at]);
  // A scheduled run names its fire; a triggered one has none.
  expect(tick_id === null).toBe(trigger === 'manual');
  return rest;
}

const publish = () => drainOutbox(suite.ds, prefix);

async function eventsOf(runId: string): Promise<{ id: string; name: string; data: Record<string, unknown> }[]> {
  const jobs = unbatchedJobs(await monitoringQueue.getJobs(['waiting'], 0, -1, true));
  return jobs
    .filter((j) => (j.data as { run: { id: string } }).run.id === runId)
    .map((j) => ({ id: j.id, name: j.name, data: j.data as Record<string, unknown> }));
}

describe("the schedule clock's runs in the outbox", () => {
  it('makes the row, command and run.queued event a Trigger Run makes, one outbox row per batch', async () => {
    const t = newTenant();
    const pipeline = store.add(t);
    const job = await newJob(t, pipeline.id, { day: '2026-11-27', amount: '12.50' });
    const manual = await caller.ok<Run>(t, 'scheduler.runs.trigger', { job_id: job.id, body: {} });
    await fire([job]);
    const [scheduled] = await runsOf(t, job, 'schedule');

    expect(await rowOf(scheduled!.id)).toEqual(await rowOf(manual.id));
    const rows = await suite.ds.query<{ kind: string; n: number }[]>(
      `SELECT kind, count(*)::int AS n FROM outbox WHERE published_at IS NULL AND (run_id = $1 OR run_id = $2)
        GROUP BY kind ORDER BY kind`,
      [manual.id, scheduled!.id],
    );
    expect(rows).toEqual([
      { kind: 'run_command', n: 1 },
      { kind: 'run_event', n: 1 },
      { kind: 'scheduled_runs', n: 1 },
    ]);

    // Silent and without a queue job, but its command is still in the outbox: the reaper leaves both alone.
    await suite.ds.query(`UPDATE runs SET last_event_at = now() - interval '1 hour' WHERE id = ANY($1::text[])`, [
      [manual.id, scheduled!.id],
    ]);
    const swept = await suite.scheduler.app.get(RunReaper).sweep();
    expect(swept).toEqual({ requeued: [], failed: [] });

    await publish();
    const commandOf = async (runId: string) => {
      const { run_id, trigger, ...rest } = (await runsQueue.getJob(runId))!.data as Record<string, unknown>;
      expect([run_id, trigger]).toEqual([runId, runId === manual.id ? 'manual' : 'schedule']);
      return rest;
    };
    expect(await commandOf(scheduled!.id)).toEqual(await commandOf(manual.id));
    const [manualEvent] = await eventsOf(manual.id);
    const [scheduledEvent] = await eventsOf(scheduled!.id);
    expect(scheduledEvent!.id).toBe(scheduledEvent!.data['event_id']);
    const comparable = ({ data }: { data: Record<string, unknown> }) => {
      const { event_id, created_at, run, ...rest } = data as Record<string, unknown> & { run: Record<string, unknown> };
      expect([typeof event_id, typeof created_at]).toEqual(['string', 'string']);
      const { id, trigger, queued_at, ...runRest } = run;
      expect([typeof id, typeof trigger, typeof queued_at]).toEqual(['string', 'string', 'string']);
      return { ...rest, run: runRest };
    };
    expect(scheduledEvent!.name).toBe('run.queued');
    expect(comparable(scheduledEvent!)).toEqual(comparable(manualEvent!));
    expect((scheduledEvent!.data['run'] as { queued_at: string }).queued_at).toBe(scheduled!.queued_at);

    // Published again (a relay that died before marking its turn): the command is not added twice; the event may
    // travel again in another batch, with its own id, which its consumers apply once.
    await suite.ds.query(`UPDATE outbox SET published_at = NULL WHERE kind = 'scheduled_runs' AND run_id = $1`, [
      scheduled!.id,
    ]);
    await publish();
    expect(new Set((await eventsOf(scheduled!.id)).map((e) => e.data['event_id']))).toEqual(
      new Set([scheduledEvent!.id]),
    );
    expect((await runsQueue.getJobs(['waiting'], 0, -1)).filter((j) => j.id === scheduled!.id)).toHaveLength(1);
  });

  it('never enqueues a scheduled run canceled before its batch was published, and splits a large batch', async () => {
    const t = newTenant();
    const pipeline = store.add(t);
    const jobs: Job[] = [];
    for (let i = 0; i < 3; i++) jobs.push(await newJob(t, pipeline.id, { i }));
    // More runs than one outbox row names: the other jobs are copies made in the table (the API is slow for this).
    const copies = RUNS_PER_MESSAGE + 5;
    await suite.ds.query(
      `INSERT INTO jobs (id, tenant_id, name, description, pipeline_id, schedule, timezone, status, concurrency_policy, parameters, revision, created_at, updated_at)
       SELECT $1 || g, tenant_id, name || g, description, pipeline_id, NULL, timezone, 'active', 'allow', parameters, 1, created_at, updated_at
         FROM jobs, generate_series(1, $2) AS g WHERE id = $3`,
      [`${jobs[0]!.id}_`, copies, jobs[0]!.id],
    );
    const all = [
      ...jobs,
      ...Array.from({ length: copies }, (_, i) => ({ ...jobs[0]!, id: `${jobs[0]!.id}_${i + 1}` })),
    ];
    await fire(all);
    const [outboxRows] = await suite.ds.query<{ n: number; runs: number }[]>(
      `SELECT count(*)::int AS n, sum(jsonb_array_length(payload->'runs'))::int AS runs FROM outbox
        WHERE kind = 'scheduled_runs' AND published_at IS NULL
          AND payload->'runs' @> jsonb_build_array(jsonb_build_object('tenant_id', $1::text))`,
      [t],
    );
    expect(outboxRows).toEqual({ n: 2, runs: all.length });

    const [canceled] = await runsOf(t, jobs[1]!, 'schedule');
    await caller.ok<Run>(t, 'scheduler.runs.cancel', { job_id: jobs[1]!.id, run_id: canceled!.id });
    await publish();

    expect(await runsQueue.getJob(canceled!.id)).toBeUndefined();
    expect((await eventsOf(canceled!.id)).map((e) => e.name).sort()).toEqual(['run.canceled', 'run.queued']);
    const [kept] = await runsOf(t, jobs[2]!, 'schedule');
    expect((await runsQueue.getJob(kept!.id))?.data).toMatchObject({ run_id: kept!.id, parameters: { i: 2 } });
    const [queued] = await suite.ds.query<{ n: number }[]>(
      `SELECT count(*)::int AS n FROM runs WHERE trigger = 'schedule' AND status = 'queued' AND job_id LIKE $1`,
      [`${jobs[0]!.id}%`],
    );
    const commands = await runsQueue.getJobs(['waiting'], 0, -1);
    const ids = new Set(
      (
        await suite.ds.query<{ id: string }[]>(`SELECT id FROM runs WHERE trigger = 'schedule' AND job_id LIKE $1`, [
          `${jobs[0]!.id}%`,
        ])
      ).map((r) => r.id),
    );
    expect(queued!.n).toBe(copies + 1);
    expect(commands.filter((c) => ids.has(String(c.id)))).toHaveLength(copies + 1);
  });
});
