import { randomUUID } from 'node:crypto';
import pg from 'pg';
import type { DataSource } from 'typeorm';
import { migrate } from '@conduit/service-kit';
import type { RpcContext } from '@conduit/contracts';
import { createDispatcherDataSource } from '../../src/database/dispatcher-data-source.js';

export const DATABASE_URL = process.env['DATABASE_URL'] ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/** Fails loudly when PostgreSQL is not there: these tests need the real server. */
export async function requirePostgres(): Promise<void> {
  const client = new pg.Client({ connectionString: DATABASE_URL, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
  } catch (err) {
    throw new Error(`PostgreSQL is required at ${DATABASE_URL} for the webhook-dispatcher tests: ${(err as Error).message}`);
  } finally {
    await client.end().catch(() => undefined);
  }
}

export function newSchemaName(): string {
  return `webhooks_test_${randomUUID().replace(/-/g, '')}`;
}

/** A data source on a fresh schema, migrated. */
export async function openSchema(schema: string): Promise<DataSource> {
  await requirePostgres();
  const ds = createDispatcherDataSource({ url: DATABASE_URL, schema, poolSize: 8 });
  await migrate(ds);
  return ds;
}

export async function dropSchema(ds: DataSource, schema: string): Promise<void> {
  try {
    await ds.query(`DROP SCHEMA "${schema}" CASCADE`);
  } finally {
    await ds.destroy();
  }
}

/** A tenant of its own per test, so tests in one schema never see each other's rows. */
export function newTenant(): string {
  return `tnt_test_${randomUUID()}`;
}

export function rpcCtx(tenantId: string): RpcContext {
  return { tenant_id: tenantId, scopes: ['read', 'write'], request_id: `req_${randomUUID()}` };
}
