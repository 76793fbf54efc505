import { randomBytes, randomUUID } from 'node:crypto';
import pg from 'pg';
import type { DataSource } from 'typeorm';
import { migrate } from '@conduit/service-kit';
import { ANY_CONNECTOR_SECRET_FIELD, SECRET_MASK, type RpcContext } from '@conduit/contracts';
import { SecretBox, sealFieldsForTransit } from '@conduit/secrets';
import { createCatalogDataSource } from '../../src/database/catalog-data-source.js';
import { ConnectorSecrets } from '../../src/connectors/connector-secrets.js';
import { ConnectorsService } from '../../src/connectors/connectors.service.js';
import { PipelinesService } from '../../src/pipelines/pipelines.service.js';
import { ProjectsService } from '../../src/projects/projects.service.js';
import { NoPipelineUsage } from '../../src/pipelines/pipeline-usage.js';

export const DATABASE_URL = process.env['DATABASE_URL'] ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/** Fails loudly when PostgreSQL is not there: these tests need the real server. */
export async function requirePostgres(): Promise<void> {
  const client = new pg.Client({ connectionString: DATABASE_URL, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
  } catch (err) {
    throw new Error(
      `PostgreSQL is required at ${DATABASE_URL} for the catalog integration tests: ${(err as Error).message}`,
      { cause: err },
    );
  } finally {
    await client.end().catch(() => undefined);
  }
}

export interface CatalogUnderTest {
  ds: DataSource;
  schema: string;
  key: Buffer;
  projects: ProjectsService;
  pipelines: PipelinesService;
  connectors: ConnectorsService;
  /** Drops the schema and closes the pool. */
  drop(): Promise<void>;
}

/** A fresh schema, migrated, with the services built on it (what Nest would inject). */
export async function freshCatalog(): Promise<CatalogUnderTest> {
  await requirePostgres();
  const schema = `catalog_test_${randomUUID().replace(/-/g, '')}`;
  // Room for the 20 concurrent creates of the name_taken test.
  const ds = createCatalogDataSource({ url: DATABASE_URL, schema, poolSize: 24 });
  await migrate(ds);
  const key = randomBytes(32);
  const pipelines = new PipelinesService(ds, new NoPipelineUsage());
  return {
    ds,
    schema,
    key,
    projects: new ProjectsService(ds, pipelines),
    pipelines,
    connectors: new ConnectorsService(ds, new ConnectorSecrets(key)),
    async drop() {
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

/** The error a promise rejects with (fails the test when it resolves). */
export async function rejection(
  promise: Promise<unknown>,
): Promise<{ code?: string; errors?: { path: string; code: string }[]; message: string }> {
  try {
    await promise;
  } catch (err) {
    return err as { code?: string; errors?: { path: string; code: string }[]; message: string };
  }
  throw new Error('expected the promise to reject, but it resolved');
}

/** A config for the local PostgreSQL; trust auth accepts any password, so the secret can be anything. */
export function localPostgresConfig(password = `pw-${randomUUID()}`): Record<string, unknown> {
  const url = new URL(DATABASE_URL);
  return {
    host: url.hostname,
    port: Number(url.port || 5432),
    database: url.pathname.slice(1) || 'postgres',
    user: decodeURIComponent(url.username || 'postgres'),
    password,
  };
}

/** A config as the gateway sends it: its secrets sealed for this tenant (the catalog refuses them in clear). */
export function inTransit(key: Buffer, tenantId: string, config: Record<string, unknown>): Record<string, unknown> {
  return sealFieldsForTransit(
    new SecretBox(key),
    config,
    ANY_CONNECTOR_SECRET_FIELD,
    tenantId,
    'connector.config',
    SECRET_MASK,
  );
}
