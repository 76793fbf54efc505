// A Redis key prefix of one suite's own, so its queues never meet another suite's or a running stack's.
import { randomUUID } from 'node:crypto';
import { connectRedis } from '../servers.js';

export interface RedisPrefix {
  readonly redisPrefix: string;
  // A property rather than a method: suites destructure it, and it does not use `this`.
  /** Runs `close` after the suite, before the prefix's keys are removed (queues, producers, workers on it). */
  closeFirst: (close: () => Promise<void>) => void;
}

/** Registers the afterAll that closes what `closeFirst` was given and removes the prefix's keys. */
export function useRedisPrefix(): RedisPrefix {
  const redisPrefix = `test-${randomUUID()}:`;
  const closers: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const close of closers) await close();
    const redis = await connectRedis();
    try {
      const keys = await redis.keys(`${redisPrefix}*`);
      if (keys.length > 0) await redis.del(...keys);
    } finally {
      redis.disconnect();
    }
  });
  return { redisPrefix, closeFirst: (close) => void closers.push(close) };
}
