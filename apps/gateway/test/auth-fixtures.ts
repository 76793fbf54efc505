// Shared by the auth, api-keys and rate-limit suites: a throwaway PostgreSQL schema with the gateway
// migrations applied, and a Redis connection with a random key prefix. Both fail loudly if the server is absent.
import type { DataSource } from 'typeorm';
import { createServiceDataSource } from '@conduit/service-kit';
import { deleteKeys, redisTestPrefix, requireRedis, testSchemas } from '@conduit/testing';
import type { Redis } from 'ioredis';
import { ApiKeyCache } from '../src/auth/api-key-cache.js';
import { ApiKeyAuthenticator } from '../src/auth/api-key-authenticator.js';
import { ApiKeyEntity } from '../src/api-keys/api-key.entity.js';
import { gatewayEntities } from '../src/api-keys/entities.js';
import { gatewayMigrations } from '../src/migrations/index.js';

export interface TestDatabase {
  dataSource: DataSource;
  schema: string;
  drop(): Promise<void>;
}

// The same path as the gateway's boot: the kit's data source and migrate(), on a throwaway schema.
const schemas = testSchemas('gateway', (options) =>
  createServiceDataSource({ ...options, entities: gatewayEntities, migrations: gatewayMigrations }),
);

export async function openTestDatabase(): Promise<TestDatabase> {
  const schema = schemas.newSchemaName();
  const dataSource = await schemas.openSchema(schema);
  return { dataSource, schema, drop: () => schemas.dropSchema(dataSource, schema) };
}

export interface TestRedis {
  redis: Redis;
  prefix: string;
  /** Another connection, for tests that race clients. */
  connect(): Promise<Redis>;
  cleanup(): Promise<void>;
}

export async function openTestRedis(): Promise<TestRedis> {
  const prefix = redisTestPrefix('gateway');
  const redis = await requireRedis('gateway');
  const extra: Redis[] = [];
  return {
    redis,
    prefix,
    async connect() {
      const client = await requireRedis('gateway');
      extra.push(client);
      return client;
    },
    async cleanup() {
      await deleteKeys(redis, prefix);
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

/** The API-key side of one suite: a migrated schema, Redis, and the key caches it opened (one per gateway replica). */
export class ApiKeyWorld {
  /** Set once the suite started. */
  db!: TestDatabase;
  redis!: TestRedis;
  private readonly caches: ApiKeyCache[] = [];

  async start(): Promise<void> {
    this.db = await openTestDatabase();
    this.redis = await openTestRedis();
  }

  /** A started key cache, stopped with the suite. */
  async openCache(ttlMs?: number): Promise<ApiKeyCache> {
    const cache = await openApiKeyCache(this.redis, ttlMs);
    this.caches.push(cache);
    return cache;
  }

  /** An authenticator reading the suite's keys through `cache`. */
  authenticator(cache: ApiKeyCache): ApiKeyAuthenticator {
    return new ApiKeyAuthenticator(this.db.dataSource.getRepository(ApiKeyEntity), cache);
  }

  async stop(): Promise<void> {
    for (const cache of this.caches) cache.onModuleDestroy();
    await this.redis?.cleanup();
    await this.db?.drop();
  }
}

/** Registers the world's beforeAll and afterAll, and answers it. */
export function useApiKeyWorld(): ApiKeyWorld {
  const world = new ApiKeyWorld();
  beforeAll(() => world.start());
  afterAll(() => world.stop());
  return world;
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
