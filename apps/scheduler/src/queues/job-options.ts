import type { JobsOptions } from 'bullmq';

const HOUR_S = 3600;
const DAY_S = 24 * HOUR_S;

/**
 * A run command (queue `runs`, job id = run id). One attempt: a run that fails is a failed run, and an executor
 * that dies is covered by BullMQ's stalled-job recovery (the executor's maxStalledCount), not by retries.
 * Finished jobs stay a day, so the reaper can still tell a completed job from a lost one.
 */
export function runCommandJobOptions(runId: string): JobsOptions {
  return {
    jobId: runId,
    attempts: 1,
    removeOnComplete: { age: DAY_S, count: 10_000 },
    removeOnFail: { age: 7 * DAY_S, count: 10_000 },
  };
}

/** A run event (queues `events.monitoring` and `events.webhooks`, job id = event id); consumers retry with backoff. */
export function runEventJobOptions(eventId: string): JobsOptions {
  return {
    jobId: eventId,
    attempts: 8,
    backoff: { type: 'exponential', delay: 1000 },
    removeOnComplete: { age: HOUR_S, count: 10_000 },
    removeOnFail: { age: 7 * DAY_S, count: 10_000 },
  };
}
