import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll } from '@jest/globals';
import type { DataSource } from 'typeorm';
import { migrate } from '@conduit/service-kit';
import { ANY_CONNECTOR_SECRET_FIELD, SECRET_MASK } from '@conduit/contracts';
import { DATABASE_URL, postgresConnectorConfig, requirePostgres } from '@conduit/testing';
import { SecretBox, sealFieldsForTransit } from '@conduit/secrets';
import { createCatalogDataSource } from '../../src/database/catalog-data-source.js';
import { ConnectorSecrets } from '../../src/connectors/connector-secrets.js';
import { ConnectorsService } from '../../src/connectors/connectors.service.js';
import { PipelinesService } from '../../src/pipelines/pipelines.service.js';
import { ProjectsService } from '../../src/projects/projects.service.js';
import { NoPipelineUsage } from '../../src/pipelines/pipeline-usage.js';

export { DATABASE_URL, newTenant, rpcCtx } from '@conduit/testing';

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
  await requirePostgres('catalog');
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

/**
 * A fresh catalog for the suite: made in its beforeAll, dropped in its afterAll. The handle is filled in when the
 * beforeAll ran, so tests and hooks may use it, module code may not.
 */
export function useFreshCatalog(): CatalogUnderTest {
  const cat: Partial<CatalogUnderTest> = {};
  beforeAll(async () => {
    Object.assign(cat, await freshCatalog());
  });
  afterAll(async () => {
    await cat.drop?.();
  });
  return cat as CatalogUnderTest;
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
  return postgresConnectorConfig({ password });
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
