import type { JobsOptions } from 'bullmq';

const DAY_S = 86_400;

/** What a delivery job carries: the attempt (deliveries row) to send. */
export interface DeliveryJobData {
  delivery_id: string;
}

/**
 * One attempt (queue `webhook-deliveries`, job id = delivery id). The receiver's failures are retried as new
 * attempts by the dispatcher; BullMQ's own retries only cover our infrastructure failing (database, Redis).
 * Jobs are removed when done so the sweep can enqueue a lost attempt again under the same id.
 */
export function deliveryJobOptions(deliveryId: string, delayMs: number): JobsOptions {
  return {
    jobId: deliveryId,
    delay: Math.max(0, Math.round(delayMs)),
    attempts: 5,
    backoff: { type: 'exponential', delay: 1000 },
    removeOnComplete: true,
    removeOnFail: true,
  };
}

/** A webhook.disabled event for monitoring (queue `events.monitoring`, job id = event id). */
export function monitoringEventJobOptions(eventId: string): JobsOptions {
  return {
    jobId: eventId,
    attempts: 8,
    backoff: { type: 'exponential', delay: 1000 },
    removeOnComplete: { age: 3600, count: 10_000 },
    removeOnFail: { age: 7 * DAY_S, count: 10_000 },
  };
}
