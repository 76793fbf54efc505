// Reading what the executor put on events.scheduler and logs (nothing consumes them in these tests).
import { Queue } from 'bullmq';
import { QUEUES, runLogBatchSchema, runReportSchema, type RunLogBatch, type RunReport } from '@conduit/contracts';
import { bullPrefix, unbatchedJobs } from '@conduit/service-kit';
import { REDIS_URL } from './redis.js';

export function openQueues(prefix: string): { runs: Queue; reports: Queue; logs: Queue } {
  const opts = { connection: { url: REDIS_URL }, prefix: bullPrefix(prefix) };
  return {
    runs: new Queue(QUEUES.runs, opts),
    reports: new Queue(QUEUES.eventsScheduler, opts),
    logs: new Queue(QUEUES.logs, opts),
  };
}

/** A run's reports in the order they were added (lone or in batch jobs), each validated by the schema the scheduler uses. */
export async function reportsOf(queue: Queue, runId: string): Promise<RunReport[]> {
  const jobs = unbatchedJobs(await queue.getJobs(['waiting', 'wait', 'completed', 'failed', 'active'], 0, -1, true));
  return (
    jobs
      .filter((job) => (job.data as { run_id?: string }).run_id === runId)
      .map((job) => runReportSchema.parse(job.data))
      // Event ids are time-ordered and monotonic within the executor: their order is the order sent.
      .sort((a, b) => (a.event_id < b.event_id ? -1 : 1))
  );
}

export async function logBatchesOf(queue: Queue, runId: string): Promise<RunLogBatch[]> {
  const jobs = unbatchedJobs(await queue.getJobs(['waiting', 'wait', 'completed', 'failed', 'active'], 0, -1, true));
  return jobs
    .filter((job) => (job.data as { run_id?: string }).run_id === runId)
    .map((job) => runLogBatchSchema.parse(job.data))
    .sort((a, b) => a.lines[0]!.n - b.lines[0]!.n);
}

/**
 * Each node's run.node reports of a run as `status` (or `status:attempts`), in the order made. A node's start is left
 * out when the node ended within the progress delay, and its end when it rode with the final report, which states it
 * (run-reporter.ts): compare with `leftOutOf`.
 */
export function nodeReportsOf(reports: RunReport[], withAttempts = false): Record<string, string[]> {
  const byNode: Record<string, string[]> = {};
  for (const r of reports) {
    if (r.type !== 'run.node') continue;
    const shown = withAttempts ? `${r.node.status}:${r.node.attempts}` : r.node.status;
    (byNode[r.node.id] ??= []).push(shown);
  }
  return byNode;
}

/** `expected` without the entries `actual` left out: equals `actual` when that only leaves entries out, in order. */
export function leftOutOf(expected: readonly string[], actual: readonly string[] = []): string[] {
  return expected.filter((e) => actual.includes(e));
}
