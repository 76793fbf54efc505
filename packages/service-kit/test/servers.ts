import pg from 'pg';
import { Redis } from 'ioredis';

// The real servers the integration tests talk to; override with the usual variables.
export const DATABASE_URL = process.env['DATABASE_URL'] || 'postgres://postgres@127.0.0.1:5432/postgres';
export const REDIS_URL = process.env['REDIS_URL'] || 'redis://127.0.0.1:6379';

/** A connected admin client, or a loud failure when PostgreSQL is not there. */
export async function connectPostgres(): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: DATABASE_URL });
  try {
    await client.connect();
  } catch (err) {
    throw new Error(`PostgreSQL is required at ${DATABASE_URL}: ${(err as Error).message}`, { cause: err });
  }
  return client;
}

/** A connected client, or a loud failure when Redis is not there. */
export async function connectRedis(): Promise<Redis> {
  const redis = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    await redis.connect();
    await redis.ping();
  } catch (err) {
    redis.disconnect();
    throw new Error(`Redis is required at ${REDIS_URL}: ${(err as Error).message}`, { cause: err });
  }
  return redis;
}
