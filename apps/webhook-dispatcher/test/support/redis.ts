// The suite's Redis, from the test kit: fails loudly when Redis is not there, a key prefix of the suite's own.
import { redisTestPrefix, requireRedis as redisOf } from '@conduit/testing';
import type { Redis } from 'ioredis';

export { deleteKeys, REDIS_URL } from '@conduit/testing';

export const requireRedis = (): Promise<Redis> => redisOf('webhook-dispatcher');

export const testPrefix = (): string => redisTestPrefix('webhooks');
