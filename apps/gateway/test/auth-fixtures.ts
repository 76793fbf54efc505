// Shared by the auth, api-keys and rate-limit suites: a throwaway PostgreSQL schema with the gateway
// migrations applied, and a Redis connection with a random key prefix. Both fail loudly if the server is absent.
import { ApiKeyCache } from '../src/auth/api-key-cache.js';
import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { createServiceDataSource, migrate } from '@conduit/service-kit';
import { Redis } from 'ioredis';
import { gatewayEntities } from '../src/api-keys/entities.js';
import { gatewayMigrations } from '../src/migrations/index.js';

const DATABASE_URL = process.env['DATABASE_URL'] ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const REDIS_URL = process.env['REDIS_URL'] ?? 'redis://127.0.0.1:6379';

export interface TestDatabase {
  dataSource: DataSource;
  schema: string;
  drop(): Promise<void>;
}

export async function openTestDatabase(): Promise<TestDatabase> {
  const schema = `gw_test_${randomUUID().replace(/-/g, '')}`;
  // The same path as the gateway's boot: the kit's data source and migrate(), on a throwaway schema.
  const dataSource = createServiceDataSource({
    url: DATABASE_URL,
    schema,
    entities: gatewayEntities,
    migrations: gatewayMigrations,
    poolSize: 8,
  });
  try {
    await migrate(dataSource);
  } catch (error) {
    if (dataSource.isInitialized) await dataSource.destroy();
    throw new Error(`PostgreSQL at ${DATABASE_URL}: cannot migrate a test schema: ${(error as Error).message}`, {
      cause: error,
    });
  }
  return {
    dataSource,
    schema,
    async drop() {
      await dataSource.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await dataSource.destroy();
    },
  };
}

export interface TestRedis {
  redis: Redis;
  prefix: string;
  /** Another connection, for tests that race clients. */
  connect(): Promise<Redis>;
  cleanup(): Promise<void>;
}

async function connectRedis(): Promise<Redis> {
  const redis = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1, retryStrategy: () => null });
  try {
    await redis.connect();
    await redis.ping();
  } catch (error) {
    redis.disconnect();
    throw new Error(`Redis is not reachable at ${REDIS_URL}: ${(error as Error).message}`, { cause: error });
  }
  return redis;
}

export async function openTestRedis(): Promise<TestRedis> {
  const prefix = `test:${randomUUID()}:`;
  const redis = await connectRedis();
  const extra: Redis[] = [];
  return {
    redis,
    prefix,
    async connect() {
      const client = await connectRedis();
      extra.push(client);
      return client;
    },
    async cleanup() {
      let cursor = '0';
      do {
        const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
        if (keys.length) await redis.del(...keys);
        cursor = next;
      } while (cursor !== '0');
      await Promise.all([redis, ...extra].map((client) => client.quit()));
    },
  };
}

/** The AppError code a promise rejects with (fails the test if it resolves). */
export async function rejectionCode(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    return typeof code === 'string' ? code : `not an AppError: ${String(error)}`;
  }
  throw new Error('expected a rejection, but the promise resolved');
}

/** A started API key cache on its own subscriber connection, as one gateway replica has. */
export async function openApiKeyCache(redis: TestRedis, ttlMs = 5000): Promise<ApiKeyCache> {
  const cache = new ApiKeyCache(redis.redis, { REDIS_PREFIX: redis.prefix, AUTH_CACHE_TTL_MS: ttlMs });
  await cache.onModuleInit();
  return cache;
}

/** The code of the first rejection of `attempt` within `timeoutMs`: for a revocation that reaches another replica. */
export async function eventualRejectionCode(attempt: () => Promise<unknown>, timeoutMs = 1000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const code = await attempt().then(
      () => undefined,
      (err: { code?: unknown }) => (typeof err?.code === 'string' ? err.code : 'not an AppError'),
    );
    if (code !== undefined || Date.now() >= deadline) return code ?? 'still accepted';
    await new Promise((r) => setTimeout(r, 5));
  }
}
