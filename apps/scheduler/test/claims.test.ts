import { beforeAll, describe, expect, it } from '@jest/globals';
import { useSchedulerSuite } from './support/scheduler-suite.js';
import { QUEUES, runEventSchema, type Run, type RunClaim, type RunEvent, type RunRenewal } from '@conduit/contracts';
import { JOB_TRACE_KEY, newId } from '@conduit/service-kit';
import { RunEntity } from '../src/runs/run.entity.js';
import { runEventOf } from '../src/runs/run.mapper.js';
import { RunReaper } from '../src/reaper/run-reaper.js';
import { newTenant } from './support/db.js';
import { getRun, triggerQueuedRun } from './support/runs.js';
import { waitFor } from '@conduit/testing';

// Fencing (issue 16): the claim's compare-and-set, renewals, the report epoch check and the reaper's respect of a
// live lease, against the real PostgreSQL and Redis through the scheduler's own RPC.
const SILENCE_MS = 300;
const suite = useSchedulerSuite({
  scheduler: { runSilenceMs: SILENCE_MS, reaperIntervalMs: 600_000, background: { ticks: false } },
  queues: [QUEUES.runs, QUEUES.eventsScheduler],
});
const { caller } = suite;
const runsQueue = suite.queue(QUEUES.runs);
const reportsQueue = suite.queue(QUEUES.eventsScheduler);
let reaper: RunReaper;

beforeAll(() => {
  reaper = suite.scheduler.app.get(RunReaper);
});

const triggered = (t: string) => triggerQueuedRun(suite, t, { concurrency_policy: 'allow' });

const claim = (t: string, run: Run, executor: string, attempt: number, leaseMs: number) =>
  caller.ok<RunClaim>(t, 'scheduler.runs.claim', { run_id: run.id, attempt, executor_id: executor, lease_ms: leaseMs });
const renew = (t: string, run: Run, epoch: number, leaseMs = 60_000) =>
  caller.ok<RunRenewal>(t, 'scheduler.runs.renew', { run_id: run.id, epoch, lease_ms: leaseMs });
const eventTypes = async (runId: string) =>
  (
    await suite.ds.query<{ type: string }[]>(
      `SELECT payload->>'type' AS type FROM outbox WHERE run_id = $1 AND kind = 'run_event' ORDER BY id`,
      [runId],
    )
  ).map((r) => r.type);
const node = (id: string, status: 'running' | 'succeeded', attempts = 1) => ({
  id,
  type: 'source',
  status,
  started_at: new Date().toISOString(),
  finished_at: status === 'running' ? null : new Date().toISOString(),
  attempts,
  rows_in: 0,
  rows_out: 3,
  output: null,
  error: null,
  columns: status === 'succeeded' ? [{ name: 'id', type: 'INTEGER' }] : null,
});
async function sendNode(t: string, run: Run, epoch: number, n: ReturnType<typeof node>, attempt = 1): Promise<void> {
  const eventId = newId('event');
  await reportsQueue.add(
    'run.node',
    {
      type: 'run.node',
      event_id: eventId,
      run_id: run.id,
      tenant_id: t,
      attempt,
      epoch,
      at: new Date().toISOString(),
      node: n,
    },
    { jobId: eventId },
  );
}

describe('claiming a run', () => {
  it('grants one claim at a time: a second executor is refused while the lease lives, then takes over with the node states', async () => {
    const t = newTenant();
    const run = await triggered(t);
    const first = await claim(t, run, 'exec-a', 1, 60_000);
    expect(first).toMatchObject({ granted: true, epoch: 1 });
    const running = await getRun(caller, t, run);
    expect(running).toMatchObject({ status: 'running', attempt: 1 });
    expect(running.started_at).not.toBeNull();
    // The first claim is the run's start, announced once.
    expect(await eventTypes(run.id)).toEqual(['run.queued', 'run.started']);

    const held = await claim(t, run, 'exec-b', 2, 60_000);
    expect(held).toMatchObject({ granted: false, reason: 'held', status: 'running' });
    expect(held.granted === false && held.retry_in_ms).toBeGreaterThan(50_000);

    // The same attempt claiming again (its first answer was lost) is granted, with a new epoch.
    const again = await claim(t, run, 'exec-a', 1, 500);
    expect(again).toMatchObject({ granted: true, epoch: 2 });
    await sendNode(t, run, 2, node('orders', 'succeeded'));
    await waitFor(
      async () => (await getRun(caller, t, run)).nodes.find((n) => n.id === 'orders')?.status === 'succeeded',
      {
        what: 'the node recorded',
      },
    );

    await waitFor(
      async () => {
        const c = await claim(t, run, 'exec-b', 2, 60_000);
        return c.granted ? c : undefined;
      },
      { what: 'the lease to lapse and the takeover to be granted', timeoutMs: 5000, intervalMs: 100 },
    ).then((c) => {
      expect(c).toMatchObject({ granted: true, epoch: 3 });
      expect(c.granted && c.nodes.find((n) => n.id === 'orders')).toMatchObject({
        status: 'succeeded',
        rows_out: 3,
        columns: [{ name: 'id', type: 'INTEGER' }],
      });
    });
    expect(await getRun(caller, t, run)).toMatchObject({ status: 'running', attempt: 2 });
    // A takeover is no new start.
    expect(await eventTypes(run.id)).toEqual(['run.queued', 'run.started']);
  });

  it('announces the start with the event runEventOf makes of the claimed row (the claim builds it in SQL)', async () => {
    const t = newTenant();
    const run = await triggered(t);
    await claim(t, run, 'exec-a', 1, 60_000);
    const [started] = await suite.ds.query<{ payload: RunEvent & Record<string, unknown>; created_at: Date }[]>(
      `SELECT payload, created_at FROM outbox WHERE run_id = $1 AND kind = 'run_event' AND payload->>'type' = 'run.started'`,
      [run.id],
    );
    const row = await suite.ds.manager.findOneByOrFail(RunEntity, { id: run.id });
    const { [JOB_TRACE_KEY]: _trace, ...payload } = started!.payload;
    const expected = runEventOf(row, 'run.started', new Date(payload.created_at));
    expect(payload).toEqual({ ...expected, event_id: payload.event_id });
    expect(payload.event_id).toMatch(/^evt_/);
    expect(started!.created_at.toISOString()).toBe(payload.created_at);
    expect(runEventSchema.safeParse(payload).success).toBe(true);
  });

  it("grants the holder's own executor again at once with the next attempt (its answer lost), fencing the earlier epoch", async () => {
    const t = newTenant();
    const run = await triggered(t);
    expect(await claim(t, run, 'exec-a', 1, 60_000)).toMatchObject({ granted: true, epoch: 1 });
    // The job was tried again after the claim's answer timed out: a higher attempt, the lease still live.
    expect(await claim(t, run, 'exec-a', 2, 60_000)).toMatchObject({ granted: true, epoch: 2 });
    expect(await getRun(caller, t, run)).toMatchObject({ status: 'running', attempt: 2 });
    expect(await renew(t, run, 1)).toEqual({ renewed: false });
    expect(await renew(t, run, 2)).toEqual({ renewed: true });
    // Another executor still waits for the lease.
    expect(await claim(t, run, 'exec-b', 3, 60_000)).toMatchObject({
      granted: false,
      reason: 'held',
      status: 'running',
    });
    expect(await eventTypes(run.id)).toEqual(['run.queued', 'run.started']);
  });

  it('refuses the renewal and the reports of a superseded epoch, and renews the current one', async () => {
    const t = newTenant();
    const run = await triggered(t);
    await claim(t, run, 'exec-a', 1, 500);
    await waitFor(async () => (await claim(t, run, 'exec-b', 2, 60_000)).granted, { what: 'the takeover' });
    expect(await renew(t, run, 1)).toEqual({ renewed: false });
    expect(await renew(t, run, 2)).toEqual({ renewed: true });

    // Same attempt number on both sides: only the epoch tells them apart.
    await sendNode(t, run, 1, node('orders', 'succeeded'), 2);
    await sendNode(t, run, 2, node('orders', 'running', 2), 2);
    await waitFor(
      async () => (await getRun(caller, t, run)).nodes.find((n) => n.id === 'orders')?.status === 'running',
      {
        what: "the current epoch's node report applied",
      },
    );
    // The old epoch's report was taken first (queue order) and refused: the node never showed as succeeded.
    const { rows } = {
      rows: await suite.ds.query<{ nodes: { id: string; attempts: number }[] }[]>(
        `SELECT nodes FROM runs WHERE id = $1`,
        [run.id],
      ),
    };
    expect(rows[0]!.nodes.find((n) => n.id === 'orders')).toMatchObject({ attempts: 2 });
  });

  it('refuses a claim and a renewal once the run is over, and the end bumps the epoch', async () => {
    const t = newTenant();
    const run = await triggered(t);
    await claim(t, run, 'exec-a', 1, 60_000);
    await caller.ok<Run>(t, 'scheduler.runs.cancel', { job_id: run.job_id, run_id: run.id });
    expect(await renew(t, run, 1)).toEqual({ renewed: false });
    expect(await claim(t, run, 'exec-b', 2, 60_000)).toEqual({
      granted: false,
      reason: 'finished',
      status: 'canceled',
      retry_in_ms: null,
    });
    const [row] = await suite.ds.query<{ epoch: number }[]>(`SELECT epoch FROM runs WHERE id = $1`, [run.id]);
    expect(row!.epoch).toBe(2);
    // A queued run canceled before any claim is refused too: it never runs.
    const queued = await triggered(t);
    await caller.ok<Run>(t, 'scheduler.runs.cancel', { job_id: queued.job_id, run_id: queued.id });
    expect(await claim(t, queued, 'exec-a', 1, 60_000)).toMatchObject({ granted: false, reason: 'finished' });
  });

  it('lets the next executor claim at once a run handed back with its lease released', async () => {
    const t = newTenant();
    const run = await triggered(t);
    await claim(t, run, 'exec-a', 1, 60_000);
    expect(await caller.ok(t, 'scheduler.runs.release', { run_id: run.id, epoch: 2 })).toEqual({ released: false });
    expect(await caller.ok(t, 'scheduler.runs.release', { run_id: run.id, epoch: 1 })).toEqual({ released: true });
    expect(await claim(t, run, 'exec-b', 2, 60_000)).toMatchObject({ granted: true, epoch: 2 });
  });

  it("answers unknown_run for another tenant's run", async () => {
    const run = await triggered(newTenant());
    expect(await claim(newTenant(), run, 'exec-a', 1, 60_000)).toMatchObject({ granted: false, reason: 'unknown_run' });
  });
});

describe('the reaper and the lease', () => {
  it('leaves a silent run alone while its lease lives, and fails it by bumping the epoch once the lease has lapsed', async () => {
    const t = newTenant();
    const run = await triggered(t);
    await claim(t, run, 'exec-a', 1, 1500);
    // Its queue job is gone and it is silent: only the live lease keeps the reaper away.
    await runsQueue.remove(run.id);
    // A fixed wait on purpose: the run falls silent, and the test proves the live lease alone keeps it.
    await new Promise((r) => setTimeout(r, SILENCE_MS + 100));
    expect((await reaper.sweep())?.failed).not.toContain(run.id);
    await waitFor(async () => (await reaper.sweep())?.failed.includes(run.id), {
      what: 'the lease to lapse and the reaper to fail the run',
      timeoutMs: 5000,
      intervalMs: 200,
    });
    expect(await getRun(caller, t, run)).toMatchObject({ status: 'failed', error: { code: 'executor_lost' } });
    const [row] = await suite.ds.query<{ epoch: number }[]>(`SELECT epoch FROM runs WHERE id = $1`, [run.id]);
    expect(row!.epoch).toBe(2);
    // The executor that comes back can neither renew, nor report, nor claim again.
    expect(await renew(t, run, 1)).toEqual({ renewed: false });
    expect(await claim(t, run, 'exec-a', 1, 1500)).toMatchObject({
      granted: false,
      reason: 'finished',
      status: 'failed',
    });
  });
});
