import type { JobsOptions } from 'bullmq';
import { QUEUES, type QueueName } from '@conduit/contracts';

const HOUR_S = 3600;
const DAY_S = 24 * HOUR_S;

/**
 * One retention policy for every queue: a finished job is kept an hour when completed and a week when failed (for
 * inspection: a failed job is the one someone looks for), at most 10 000 of each. Two exceptions, for the code that
 * reads the queue later: a run command's completed job stays a day, so the reaper can still tell a completed job
 * from a lost one; a delivery attempt is removed at once, so the sweep can enqueue a lost attempt again under its id.
 */
const KEEP = {
  removeOnComplete: { age: HOUR_S, count: 10_000 },
  removeOnFail: { age: 7 * DAY_S, count: 10_000 },
} as const satisfies JobsOptions;

/**
 * KEEP for the batchable queues, which carry `batch` jobs of up to 100 events each: a tenth of the count (Redis runs
 * noeviction: what is kept must stay bounded).
 */
const KEEP_BATCHES = {
  removeOnComplete: { age: HOUR_S, count: 1_000 },
  removeOnFail: { age: 7 * DAY_S, count: 1_000 },
} as const satisfies JobsOptions;

/** Events a consumer may fail on while our own infrastructure is down: tried again with backoff. */
const EVENT: JobsOptions = { ...KEEP_BATCHES, attempts: 8, backoff: { type: 'exponential', delay: 1000 } };

/** The default job options of each queue (its producers add only a job id, and a delay where one applies). */
export const QUEUE_JOB_OPTIONS: Readonly<Record<QueueName, JobsOptions>> = {
  // One attempt: a run that fails is a failed run; an executor that dies is covered by BullMQ's stalled-job
  // recovery (the executor's maxStalledCount), not by retries.
  [QUEUES.runs]: { ...KEEP, removeOnComplete: { age: DAY_S, count: 10_000 }, attempts: 1 },
  [QUEUES.eventsMonitoring]: EVENT,
  [QUEUES.eventsWebhooks]: EVENT,
  // Reports: the executor tries an add again itself (run-reporter.ts); a job is processed once.
  [QUEUES.eventsScheduler]: { ...KEEP_BATCHES, attempts: 1 },
  // Log batches are stored idempotently (run_id, seq), so a monitoring database outage is ridden out by retries
  // rather than losing lines; a batch that still fails holds tenant log text, so it stays a day, not a week.
  [QUEUES.logs]: { ...EVENT, removeOnFail: { age: DAY_S, count: 1_000 } },
  // The receiver's failures are retried as new attempts by the dispatcher; BullMQ's own retries only cover our
  // infrastructure failing (database, Redis).
  [QUEUES.webhookDeliveries]: {
    attempts: 5,
    backoff: { type: 'exponential', delay: 1000 },
    removeOnComplete: true,
    removeOnFail: true,
  },
  [QUEUES.schedulerTicks]: KEEP,
};
