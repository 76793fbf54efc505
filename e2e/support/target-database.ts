/**
 * A database of the suite's own on the local PostgreSQL, for connectors to read and write. Connectors may never
 * reach the platform's own database (issue 14), so suites no longer point them at `stack.databaseUrl`.
 */
import { randomUUID } from 'node:crypto';
import pg from 'pg';

const PG_ADMIN_URL = process.env.E2E_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export interface TargetDatabase {
  name: string;
  /** A connection string for the suite's own checks. */
  url: string;
  /** A postgres connector config pointing at it. */
  config(overrides?: Record<string, unknown>): Record<string, unknown>;
  /** Drops it, closing whatever is still connected (DROP DATABASE ... WITH (FORCE)). */
  drop(): Promise<void>;
}

async function admin<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: PG_ADMIN_URL });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

export async function createTargetDatabase(): Promise<TargetDatabase> {
  const name = `conduit_target_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
  await admin((c) => c.query(`CREATE DATABASE ${pg.escapeIdentifier(name)}`));
  const server = new URL(PG_ADMIN_URL);
  const url = new URL(PG_ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    name,
    url: url.toString(),
    config: (overrides = {}) => ({
      host: server.hostname,
      port: Number(server.port || 5432),
      database: name,
      user: decodeURIComponent(server.username) || 'postgres',
      ...overrides,
    }),
    drop: () =>
      admin((c) => c.query(`DROP DATABASE IF EXISTS ${pg.escapeIdentifier(name)} WITH (FORCE)`)).then(() => undefined),
  };
}
