import type { Job } from 'bullmq';
import { BATCH_JOB, type BatchJobData } from '@conduit/contracts';
import { splitJobTrace } from './job-trace.js';

/** A job as its producer added it: a lone job, or one item of a `batch` job (QueueProducer.addBatch). */
export interface QueuedJob {
  /** The job's id, or the item's dedupe id (the id it would have had alone). */
  id: string;
  name: string;
  /** Its data without the trace context. */
  data: unknown;
  /** When it was added (a batch item: its batch). */
  timestamp: number;
}

/**
 * The jobs read from a queue as their producers added them, a batch job's items in its place and order: what an
 * operator inspecting a queue, or a test, means by its jobs.
 */
export function unbatchedJobs(jobs: readonly Job[]): QueuedJob[] {
  return jobs.flatMap((job): QueuedJob[] => {
    if (job.name !== BATCH_JOB) {
      return [{ id: String(job.id), name: job.name, data: splitJobTrace(job.data).payload, timestamp: job.timestamp }];
    }
    return (job.data as BatchJobData).jobs.map((item) => ({
      id: item.id,
      name: item.name,
      data: splitJobTrace(item.data).payload,
      timestamp: job.timestamp,
    }));
  });
}
