// What the executor's worker tests stand up around the executors they start: the suite's Redis prefix, the catalog
// stub answering its connectors, the scheduler stub granting claims, and the queues the executor reads and writes.
import type { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import type { RunReport } from '@conduit/contracts';
import { waitFor } from '@conduit/testing';
import { startCatalogStub, type CatalogStubData } from './catalog-stub.js';
import { runCommand } from './executor.js';
import { openQueues, reportsOf } from './queues.js';
import { connectRedis, deleteKeys, testPrefix } from './redis.js';
import { newSchedulerStubData, startSchedulerStub, type SchedulerStubData } from './scheduler-stub.js';

export type FinishedReport = Extract<RunReport, { type: 'run.finished' }>;

export interface WorkerSuite {
  prefix: string;
  redis: Redis;
  /** What the scheduler stub knows and answered: runs, claims, renewals. */
  fencing: SchedulerStubData;
  queues: { runs: Queue; reports: Queue; logs: Queue };
  /** Puts the run command of `dag` on the runs queue (the job id is the run id), as the scheduler does. */
  enqueue: (runId: string, tenantId: string, dag: object) => Promise<void>;
  /** Resolves once one of the run's nodes was reported running (an executor holds the run). */
  started: (runId: string, wait: { what: string; timeoutMs: number }) => Promise<void>;
  /** The run's run.finished report, once the executor sent it. */
  finished: (runId: string, wait?: { what?: string; timeoutMs?: number }) => Promise<FinishedReport>;
  /** Closes the stubs and queues and removes the prefix's keys; stop the suite's executors first. */
  close: () => Promise<void>;
}

export async function startWorkerSuite(catalogData: CatalogStubData): Promise<WorkerSuite> {
  const prefix = testPrefix();
  // Undone in reverse order, also when a later step fails.
  const undo: (() => Promise<unknown>)[] = [];
  const close = async () => {
    for (const step of undo.reverse()) await step();
  };
  try {
    const redis = await connectRedis();
    undo.push(
      () => redis.quit(),
      () => deleteKeys(redis, prefix),
    );
    const catalog = await startCatalogStub(prefix, catalogData);
    undo.push(() => catalog.close());
    const fencing = newSchedulerStubData();
    const scheduler = await startSchedulerStub(prefix, fencing);
    undo.push(() => scheduler.close());
    const queues = openQueues(prefix);
    undo.push(() => Promise.all(Object.values(queues).map((q) => q.close())));
    return {
      prefix,
      redis,
      fencing,
      queues,
      async enqueue(runId, tenantId, dag) {
        await queues.runs.add('run', runCommand(runId, tenantId, dag), { jobId: runId });
      },
      async started(runId, wait) {
        await waitFor(
          async () =>
            (await reportsOf(queues.reports, runId)).some((r) => r.type === 'run.node' && r.node.status === 'running'),
          wait,
        );
      },
      async finished(runId, { what = `run.finished of ${runId}`, timeoutMs = 20_000 } = {}) {
        let found: RunReport | undefined;
        await waitFor(
          async () => {
            found = (await reportsOf(queues.reports, runId)).find((r) => r.type === 'run.finished');
            return found !== undefined;
          },
          { what, timeoutMs },
        );
        return found as FinishedReport;
      },
      close,
    };
  } catch (err) {
    await close();
    throw err;
  }
}
