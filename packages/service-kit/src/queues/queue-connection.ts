/**
 * The connection options every service gives BullMQ. BullMQ's own reconnect delay grows as e^attempt up to 20 s, so
 * after a Redis outage of 20 s a worker could wait another 20 s before it reconnects; issue 16 wants every service
 * back within 5 s of Redis, so the delay grows by 100 ms per attempt and stops at 1 s.
 */
export const RECONNECT_MAX_DELAY_MS = 1_000;

/** ioredis' retryStrategy: the delay before reconnect attempt `times` (1-based). */
export function reconnectDelay(times: number): number {
  return Math.min(100 * Math.max(1, times), RECONNECT_MAX_DELAY_MS);
}

export interface QueueConnectionOptions {
  url: string;
  /** BullMQ's blocking connections need null: a command waits for the reconnect instead of failing. */
  maxRetriesPerRequest: null;
  retryStrategy: (times: number) => number;
}

export function queueConnectionOptions(url: string): QueueConnectionOptions {
  return { url, maxRetriesPerRequest: null, retryStrategy: reconnectDelay };
}

/**
 * The BullMQ `prefix` of a deployment: its REDIS_PREFIX followed by `bull` (`conduit:` -> `conduit:bull`, so keys
 * read `conduit:bull:runs:...`). Two stacks with different prefixes never share a queue. Every service takes it
 * from here.
 */
export function bullPrefix(redisPrefix: string): string {
  return `${redisPrefix}bull`;
}

/** Where a service's queues live: its Redis and its deployment's REDIS_PREFIX (`conduit:`). */
export interface QueueLocation {
  redisUrl: string;
  redisPrefix: string;
}
