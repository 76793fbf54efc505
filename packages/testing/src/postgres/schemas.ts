import { randomUUID } from 'node:crypto';
import pg from 'pg';
import type { DataSource } from 'typeorm';
import type { RpcContext } from '@conduit/contracts';
import { migrate } from '@conduit/service-kit';

export const DATABASE_URL = process.env['DATABASE_URL'] ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/** Fails loudly when PostgreSQL is not there: integration tests need the real server. */
export async function requirePostgres(who: string): Promise<void> {
  const client = new pg.Client({ connectionString: DATABASE_URL, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
  } catch (err) {
    throw new Error(`PostgreSQL is required at ${DATABASE_URL} for the ${who} tests: ${(err as Error).message}`, {
      cause: err,
    });
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** Schemas of one service's tests: a fresh one per suite, migrated, dropped after. */
// Properties rather than methods: apps destructure them, and none uses `this`.
export interface TestSchemas {
  newSchemaName: () => string;
  /** A data source on the schema, migrated (a second one on the same schema plays another replica). */
  openSchema: (schema: string) => Promise<DataSource>;
  dropSchema: (ds: DataSource, schema: string) => Promise<void>;
}

export function testSchemas(
  service: string,
  createDataSource: (opts: { url: string; schema: string; poolSize: number }) => DataSource,
): TestSchemas {
  return {
    newSchemaName: () => `${service.replace(/-/g, '_')}_test_${randomUUID().replace(/-/g, '')}`,
    async openSchema(schema) {
      await requirePostgres(service);
      const ds = createDataSource({ url: DATABASE_URL, schema, poolSize: 8 });
      await migrate(ds);
      return ds;
    },
    async dropSchema(ds, schema) {
      try {
        await ds.query(`DROP SCHEMA "${schema}" CASCADE`);
      } finally {
        await ds.destroy();
      }
    },
  };
}

/** A tenant id of its own per test, so tests in one schema never see each other's rows. */
export function newTenant(): string {
  return `tnt_test_${randomUUID()}`;
}

export function rpcCtx(tenantId: string): RpcContext {
  return { tenant_id: tenantId, scopes: ['read', 'write'], request_id: `req_${randomUUID()}` };
}
