import pg from 'pg';
import { stopProcess } from '@conduit/testing';
import { call } from '../support/client.js';
import { createPipelineAndJob, listAll, waitFor, waitForRunEnd } from '../support/helpers.js';
import { type FaultStack, startFaultStack } from '../support/fault-stack.js';
import { MARKED_ROWS_TABLE, markedRowsDag, rowsByExecution } from '../support/run-executions.js';
import type { Run } from '@conduit/contracts';

// R4 (issue 16): the scheduler killed with -9 between a run's commit and its enqueue (the test-only fault point
// SCHEDULER_FAULT_POINT=after_run_commit). The run and its command were committed together (the outbox): a restarted
// scheduler publishes the command, and the run executes once. The stack runs on a PostgreSQL and a Redis of its own.
let fault: FaultStack;

beforeAll(async () => {
  fault = await startFaultStack();
  await fault.db.query(`create table r4_out ${MARKED_ROWS_TABLE}`);
}, 120_000);

afterAll(async () => {
  await fault?.destroy();
});

it('R4: a scheduler killed between the commit and the enqueue leaves no run queued, and none runs twice', async () => {
  const { stack, connectorId } = fault;
  const dag = markedRowsDag(connectorId, 'r4_out', 10, 0);
  const { jobId } = await createPipelineAndJob(stack, dag, { concurrency_policy: 'allow' });

  // The only scheduler gives way to one armed with the fault point.
  for (const p of stack.processes.filter((s) => s.name === 'scheduler')) await stopProcess(p.child);
  const armed = await stack.startService('scheduler', { SCHEDULER_FAULT_POINT: 'after_run_commit' });
  const died = new Promise<NodeJS.Signals | null>((resolve) =>
    armed.child.once('exit', (_code, signal) => resolve(signal)),
  );
  // Three triggers at once: the first commit kills the scheduler; the others die with it, committed or not.
  const answers = await Promise.all(
    [1, 2, 3].map(() => call<Run>(stack, 'POST', `/v2/jobs/${jobId}/run`, { body: {} })),
  );
  expect(await died).toBe('SIGKILL');
  // None was answered 202 (the scheduler died before answering); each is a 503 a client retries.
  expect(answers.map((a) => a.status)).toEqual([503, 503, 503]);

  const platform = new pg.Client({ connectionString: stack.databaseUrl });
  await platform.connect();
  try {
    const committed = await platform.query<{ id: string; status: string; published: boolean }>(
      `select r.id, r.status, o.published_at is not null as published from scheduler.runs r join scheduler.outbox o on o.run_id = r.id and o.kind = 'run_command' where r.job_id = $1`,
      [jobId],
    );
    // At least the run whose commit fired the fault point, still queued, its command not yet published.
    expect(committed.rows.length).toBeGreaterThanOrEqual(1);
    expect(committed.rows.every((r) => r.status === 'queued')).toBe(true);
    expect(committed.rows.some((r) => !r.published)).toBe(true);

    await stack.startService('scheduler');
    const ended = await Promise.all(committed.rows.map((r) => waitForRunEnd(stack, jobId, r.id, 30_000)));
    expect(ended.map((r) => r.status)).toEqual(committed.rows.map(() => 'succeeded'));
    const all = await listAll<{ id: string; status: string }>(stack, `/v2/jobs/${jobId}/runs`);
    expect(all.filter((r) => r.status === 'queued')).toEqual([]);
    expect(all).toHaveLength(committed.rows.length);
    // Each run executed once: one source execution per run reached the sink, with all its rows.
    expect(await rowsByExecution(fault.db, 'r4_out')).toEqual(committed.rows.map(() => 10));
    await waitFor(
      async () => {
        const { rows } = await platform.query<{ n: number }>(
          `select count(*)::int as n from scheduler.outbox where kind = 'run_command' and published_at is null`,
        );
        return rows[0]?.n === 0;
      },
      { what: 'the commands published', timeoutMs: 20_000 },
    );
  } finally {
    await platform.end();
  }
}, 120_000);
