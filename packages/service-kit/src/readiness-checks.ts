import type { Redis } from 'ioredis';
import type { DataSource } from 'typeorm';
import type { ReadinessCheck } from './ops/readiness.js';

/** `redis`: answers PING. While disconnected, ioredis queues the PING, so the readiness timeout reports it. */
export function redisReadinessCheck(redis: Redis, name = 'redis'): ReadinessCheck {
  return {
    name,
    async check() {
      await redis.ping();
    },
  };
}

/**
 * `db`: the data source is initialised and answers `SELECT 1`. A function gives it where it is only known once the
 * app has opened it (TypeOrmModule).
 */
export function dataSourceReadinessCheck(
  dataSource: DataSource | (() => DataSource | undefined),
  name = 'db',
): ReadinessCheck {
  return {
    name,
    async check() {
      const ds = typeof dataSource === 'function' ? dataSource() : dataSource;
      if (!ds?.isInitialized) throw new Error('data source not initialised');
      await ds.query('SELECT 1');
    },
  };
}
