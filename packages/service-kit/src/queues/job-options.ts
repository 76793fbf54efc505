import type { JobsOptions } from 'bullmq';
import { QUEUES, type QueueName } from '@conduit/contracts';
import { unavailableDependencyOf } from '../errors/dependency-errors.js';

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

/** The BullMQ backoff type whose delays outageBackoff computes (every worker of QueueWorkers has it). */
export const OUTAGE_BACKOFF = 'outage';
/** Tries of a job failing for another reason than an outage (a bug, a bad message): then it fails. */
const TRIES_OTHERWISE = 8;
/** The longest wait between two tries during an outage: a job is taken within that of the dependency's return. */
const OUTAGE_RETRY_MAX_MS = 5000;
/** Tries in all during an outage: about a day at OUTAGE_RETRY_MAX_MS apart. */
const OUTAGE_TRIES = 17_300;

/**
 * The delay before try `attemptsMade + 1` of a job that failed with `err`: 1 s, 2 s, 4 s, then every 5 s while the
 * error says our own infrastructure is down (unavailableDependencyOf: the database, Redis, a service), for about a
 * day; any other error fails the job after TRIES_OTHERWISE tries (-1: BullMQ retries no more). A report or a log
 * batch must outlive an outage of its consumer's database: dropped, a run that succeeded was recorded as failed
 * (its final report lost) and log lines were gone.
 */
export function outageBackoff(attemptsMade: number, _type?: string, err?: Error): number {
  if (attemptsMade >= TRIES_OTHERWISE && unavailableDependencyOf(err) === undefined) return -1;
  return Math.min(OUTAGE_RETRY_MAX_MS, 1000 * 2 ** Math.max(0, attemptsMade - 1));
}

/** Messages a consumer may fail on while our own infrastructure is down: tried again through the outage. */
const OUTAGE_RETRIES: JobsOptions = { attempts: OUTAGE_TRIES, backoff: { type: OUTAGE_BACKOFF } };

/** Events a consumer may fail on while our own infrastructure is down: tried again with backoff. */
const EVENT: JobsOptions = { ...KEEP_BATCHES, ...OUTAGE_RETRIES };

/** The default job options of each queue (its producers add only a job id, and a delay where one applies). */
export const QUEUE_JOB_OPTIONS: Readonly<Record<QueueName, JobsOptions>> = {
  // One attempt: a run that fails is a failed run; an executor that dies is covered by BullMQ's stalled-job
  // recovery (the executor's maxStalledCount), not by retries.
  [QUEUES.runs]: { ...KEEP, removeOnComplete: { age: DAY_S, count: 10_000 }, attempts: 1 },
  [QUEUES.eventsMonitoring]: EVENT,
  [QUEUES.eventsWebhooks]: EVENT,
  // Reports: the executor tries an add again itself (run-reporter.ts), and the scheduler tries a report again while its
  // database is down (a report is applied once: processed_events; out of order is fine: run-transitions.ts).
  [QUEUES.eventsScheduler]: { ...KEEP_BATCHES, ...OUTAGE_RETRIES },
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
