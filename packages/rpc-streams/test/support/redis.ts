// Shared by the integration tests: a live Redis, a per-suite prefix, polling.
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';

export const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/** Fails loudly when Redis is not there, instead of letting every test time out. */
export async function connectRedis(): Promise<Redis> {
  const redis = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1, retryStrategy: () => null });
  try {
    await redis.connect();
    await redis.ping();
  } catch (err) {
    redis.disconnect();
    throw new Error(`Redis is required at ${REDIS_URL} for these tests: ${String(err)}`, { cause: err });
  }
  return redis;
}

export function testPrefix(): string {
  return `test:rpc-streams:${randomUUID()}:`;
}

export async function deleteKeys(redis: Redis, prefix: string): Promise<void> {
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
    cursor = next;
    if (keys.length > 0) await redis.del(...keys);
  } while (cursor !== '0');
}

export async function waitFor(
  condition: () => Promise<boolean> | boolean,
  timeoutMs: number,
  what: string,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** Pending (read but unacked) entries of a group; 0 when the stream or group is gone. */
export async function pendingCount(redis: Redis, stream: string, group: string): Promise<number> {
  try {
    const summary = (await redis.xpending(stream, group)) as [number, ...unknown[]];
    return Number(summary[0]);
  } catch {
    return 0;
  }
}
