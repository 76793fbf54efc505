// Runs as the lifecycle suites (claims, reaper, runs) drive them: triggered onto the queue, read back, awaited in a
// status, and started by an executor's report.
import { QUEUES, type Job, type Run, type RunReport } from '@conduit/contracts';
import { newId } from '@conduit/service-kit';
import { waitFor } from '@conduit/testing';
import type { DataSource } from 'typeorm';
import type { SchedulerCaller } from './scheduler-app.js';
import type { SchedulerSuite } from './scheduler-suite.js';

/**
 * Creates a job (on a pipeline of the suite's stub catalog) and triggers a run; resolves once its command is queued
 * and its outbox rows published: the trigger adds the command at once and the relay adds it again (a no-op), so a
 * test that removes the job waits for both.
 */
export async function triggerQueuedRun(suite: SchedulerSuite, t: string, job: Partial<Job> = {}): Promise<Run> {
  const created = await suite.caller.ok<Job>(t, 'scheduler.jobs.create', {
    body: { name: `j-${newId('job')}`, pipeline_id: suite.store.add(t).id, ...job },
  });
  const run = await suite.caller.ok<Run>(t, 'scheduler.runs.trigger', { job_id: created.id, body: {} });
  await waitFor(() => suite.queue(QUEUES.runs).getJob(run.id), { what: 'the command enqueued' });
  await outboxPublished(suite.ds, run.id);
  return run;
}

/** Resolves once a live relay has published every outbox row of the run. */
export function outboxPublished(ds: DataSource, runId: string): Promise<boolean> {
  return waitFor(
    async () =>
      (
        await ds.query<{ n: number }[]>(
          `SELECT count(*)::int AS n FROM outbox WHERE run_id = $1 AND published_at IS NULL`,
          [runId],
        )
      )[0]?.n === 0,
    { what: "the run's outbox rows published" },
  );
}

export function getRun(caller: SchedulerCaller, t: string, run: Run): Promise<Run> {
  return caller.ok<Run>(t, 'scheduler.runs.get', { job_id: run.job_id, run_id: run.id });
}

/** Polls the run until it is in `status`, and answers it then. */
export function runInStatus(caller: SchedulerCaller, t: string, run: Run, status: Run['status']): Promise<Run> {
  return waitFor(
    async () => {
      const current = await getRun(caller, t, run);
      return current.status === status ? current : undefined;
    },
    { what: `the run ${status}` },
  );
}

/** The report an executor sends when it starts the run's first attempt (never claimed: epoch 0). */
export function runStartedReport(t: string, run: Run, executorId: string): RunReport {
  return {
    type: 'run.started',
    event_id: newId('event'),
    run_id: run.id,
    tenant_id: t,
    attempt: 1,
    epoch: 0,
    at: new Date().toISOString(),
    executor_id: executorId,
  };
}
