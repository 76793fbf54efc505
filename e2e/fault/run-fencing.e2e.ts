import type { ServiceProcess, Stack } from '@conduit/testing';
import { call } from '../support/client.js';
import { createPipelineAndJob, inPool, triggerRun, waitFor, waitForRun, waitForRunEnd } from '../support/helpers.js';
import { type FaultStack, startFaultStack } from '../support/fault-stack.js';
import {
  MARKED_ROWS_TABLE,
  executorRunning,
  killHard,
  liveExecutors,
  markedRowsDag,
  markedRowsQuery,
  rowsByExecution,
} from '../support/run-executions.js';

// R1 and the fencing of issue 16: an executor killed with -9 mid-node, its runs taken over by another executor and
// resumed; a run the reaper failed never executed when its queue job comes back; a committed sink never written
// twice. Each test starts its own stack on its own PostgreSQL and Redis (fault-stack.ts). Short locks make takeovers
// take seconds: a run's lease is half RUN_LOCK_MS.
const SHORT_LOCKS = { RUN_LOCK_MS: '2000', RUN_STALLED_INTERVAL_MS: '1000', SCHEDULER_REAPER_INTERVAL_MS: '500' };

let fault: FaultStack | undefined;

afterEach(async () => {
  await fault?.destroy();
  fault = undefined;
});

async function setUp(env: Record<string, string>, table: string): Promise<{ stack: Stack; connectorId: string }> {
  fault = await startFaultStack(env);
  await fault.db.query(`create table ${table} ${MARKED_ROWS_TABLE}`);
  return { stack: fault.stack, connectorId: fault.connectorId };
}

type Run = Awaited<ReturnType<typeof triggerRun>>;

it('R1: 50 runs, an executor killed with -9 mid-node: every run ends within 60 s, every sink row written once', async () => {
  // Silence well past a takeover: the survivor takes the dead executor's runs over, the reaper has nothing to do.
  const { stack, connectorId } = await setUp(
    { ...SHORT_LOCKS, SCHEDULER_RUN_SILENCE_MS: '15000', EXECUTOR_CONCURRENCY: '8' },
    'r1_out',
  );
  await stack.startService('executor');
  const dag = markedRowsDag(connectorId, 'r1_out', 20, 1.5);
  const { jobId } = await createPipelineAndJob(stack, dag, { concurrency_policy: 'allow' });
  const runs: Run[] = await inPool(50, 10, () => triggerRun(stack, jobId));

  // The victim: an executor in the middle of a node of a run still running.
  let victimRuns: string[] = [];
  const [victim] = liveExecutors(stack);
  await waitFor(
    async () => {
      const running = await Promise.all(runs.map((r) => call<Run>(stack, 'GET', `/v2/jobs/${jobId}/runs/${r.id}`)));
      const inSource = (r: Run) => r.status === 'running' && r.nodes.find((n) => n.id === 'rows')?.status === 'running';
      victimRuns = running
        .filter((r) => inSource(r.body) && executorRunning(stack, r.body.id) === victim)
        .map((r) => r.body.id);
      return victimRuns.length >= 2;
    },
    { what: 'the first executor to be in the middle of runs', timeoutMs: 30_000, intervalMs: 50 },
  );
  await killHard(victim!);
  const killedAt = Date.now();

  const ended = await Promise.all(runs.map((r) => waitForRunEnd(stack, jobId, r.id, 60_000)));
  expect(Date.now() - killedAt).toBeLessThan(60_000);
  expect(ended.filter((r) => r.status !== 'succeeded').map((r) => [r.id, r.status, r.error])).toEqual([]);
  // The killed executor's runs were taken over, not failed (a run that was just ending when it died may have ended).
  expect(victimRuns.filter((id) => ended.find((r) => r.id === id)!.attempt >= 2).length).toBeGreaterThanOrEqual(1);

  // Exactly once at the sink: one source execution wrote each run's 20 rows, no execution wrote twice, no run wrote
  // twice (a repeated sink or a second execution of a finished run would add an execution).
  const executions = await rowsByExecution(fault!.db, 'r1_out');
  expect(executions).toHaveLength(50);
  expect(executions.every((n) => n === 20)).toBe(true);
  expect(ended.reduce((sum, r) => sum + r.stats.rows_written, 0)).toBe(1000);
  // No report of a dead or finished execution was taken: none was even refused here, the victim being dead.
  expect(stack.logs()).not.toContain('report of a fenced execution refused');
}, 150_000);

it('a run the reaper failed is never executed when its queue job comes back', async () => {
  // One executor, killed: no other is left to take its job, so the reaper fails the run once its lease has lapsed
  // and it has been silent 3 s. The next executor's stalled check then finds the job without a lock.
  const { stack, connectorId } = await setUp({ ...SHORT_LOCKS, SCHEDULER_RUN_SILENCE_MS: '3000' }, 'reaped_out');
  const dag = markedRowsDag(connectorId, 'reaped_out', 10, 4);
  const { jobId } = await createPipelineAndJob(stack, dag);
  const run = await triggerRun(stack, jobId);
  await waitForRun(stack, jobId, run.id, (r) => r.status === 'running');
  const [victim] = liveExecutors(stack);
  await waitFor(async () => executorRunning(stack, run.id) === victim, {
    what: 'the executor to start the run',
    timeoutMs: 5000,
    intervalMs: 50,
  });
  await killHard(victim!);

  const failed = await waitForRunEnd(stack, jobId, run.id, 20_000);
  expect(failed).toMatchObject({ status: 'failed', error: { code: 'executor_lost' } });
  const next = await stack.startService('executor');
  await waitFor(async () => next.output.join('').includes('run claim refused: nothing runs'), {
    what: 'the next executor to take the job back and be refused its claim',
    timeoutMs: 15_000,
    intervalMs: 100,
  });
  const refusal = next.output
    .join('')
    .split('\n')
    .find((l) => l.includes('run claim refused: nothing runs'))!;
  expect(JSON.parse(refusal)).toMatchObject({ run_id: run.id, reason: 'finished', status: 'failed' });
  // Nothing ran: no node started on the new executor, no row reached the sink, the run is as the reaper left it.
  expect(next.output.join('')).not.toContain('"msg":"run started"');
  expect(await rowsByExecution(fault!.db, 'reaped_out')).toEqual([]);
  expect(await waitForRunEnd(stack, jobId, run.id)).toMatchObject({
    status: 'failed',
    finished_at: failed.finished_at,
  });
}, 150_000);

it('a takeover does not write a committed sink again, and runs what was left', async () => {
  const { stack, connectorId } = await setUp({ ...SHORT_LOCKS, SCHEDULER_RUN_SILENCE_MS: '30000' }, 'first_out');
  await fault!.db.query(`create table second_out ${MARKED_ROWS_TABLE}`);
  await stack.startService('executor');
  const dag = {
    nodes: [
      { id: 'quick', type: 'source', config: { connector_id: connectorId, query: markedRowsQuery(100, 0) } },
      { id: 'first', type: 'sink', config: { connector_id: connectorId, table: 'first_out', mode: 'append' } },
      { id: 'slow', type: 'source', config: { connector_id: connectorId, query: markedRowsQuery(100, 5) } },
      { id: 'second', type: 'sink', config: { connector_id: connectorId, table: 'second_out', mode: 'append' } },
    ],
    edges: [
      { from: 'quick', to: 'first' },
      { from: 'slow', to: 'second' },
    ],
  };
  const { jobId } = await createPipelineAndJob(stack, dag);
  const run = await triggerRun(stack, jobId);
  // `first` committed while `slow` is still in PostgreSQL: kill its executor then.
  await waitForRun(
    stack,
    jobId,
    run.id,
    (r) =>
      r.nodes.find((n) => n.id === 'first')?.status === 'succeeded' &&
      r.nodes.find((n) => n.id === 'slow')?.status === 'running',
    10_000,
    50,
  );
  // Its "run started" line may still be in the executor's log batch (written within 100 ms): wait for it.
  let victim: ServiceProcess | undefined;
  await waitFor(async () => (victim = executorRunning(stack, run.id)) !== undefined, {
    what: 'the executor of the run to log it',
    timeoutMs: 5_000,
    intervalMs: 25,
  });
  await killHard(victim!);

  const ended = await waitForRunEnd(stack, jobId, run.id, 30_000);
  expect({ status: ended.status, error: ended.error }).toEqual({ status: 'succeeded', error: null });
  expect(ended.attempt).toBeGreaterThanOrEqual(2);
  const byId = Object.fromEntries(ended.nodes.map((n) => [n.id, [n.status, n.attempts]]));
  // Kept as recorded: the committed sink and the source only it read. Run again: what the dead execution left.
  expect(byId).toEqual({
    quick: ['succeeded', 1],
    first: ['succeeded', 1],
    slow: ['succeeded', 2],
    second: ['succeeded', 1],
  });
  expect(await rowsByExecution(fault!.db, 'first_out')).toEqual([100]);
  expect(await rowsByExecution(fault!.db, 'second_out')).toEqual([100]);
  expect(ended.stats.rows_written).toBe(200);
}, 150_000);
