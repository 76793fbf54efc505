/** The BullMQ options every executor queue shares (the scheduler applies the same prefix rule). */
import type { JobsOptions } from 'bullmq';

/** Every Queue and Worker of the deployment lives under `${REDIS_PREFIX}bull`. */
export function bullPrefix(redisPrefix: string): string {
  return `${redisPrefix}bull`;
}

/** Reports and log batches: kept a while for inspection, never forever. */
export const MESSAGE_JOB_OPTIONS: JobsOptions = {
  removeOnComplete: { age: 3600, count: 10_000 },
  removeOnFail: { age: 24 * 3600, count: 10_000 },
  attempts: 1,
};
