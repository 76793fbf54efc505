import type { DataSource } from 'typeorm';
import type { Logger } from 'pino';
import { createServiceDataSource, type ServiceDataSourceOptions } from '@conduit/service-kit';
import { ProjectEntity } from '../projects/project.entity.js';
import { PipelineEntity } from '../pipelines/pipeline.entity.js';
import { ConnectorEntity } from '../connectors/connector.entity.js';
import { Init1732240000000 } from '../migrations/1732240000000-init.js';
import { IdempotencyKeys1764110000000 } from '../migrations/1764110000000-idempotency-keys.js';
import { DEFAULT_SCHEMA } from './schema-name.js';

export const CATALOG_ENTITIES = [ProjectEntity, PipelineEntity, ConnectorEntity];
/** In order; append new migrations here. */
export const CATALOG_MIGRATIONS = [Init1732240000000, IdempotencyKeys1764110000000];

export interface CatalogDataSourceOptions {
  url: string;
  /** Default `catalog`. */
  schema?: string;
  /** Default 10. */
  poolSize?: number;
  logger?: Logger;
}

/** The catalog's schema, entities and migrations, for `serviceDatabaseModule` (the app) and the data source below. */
export function catalogDatabaseOptions(opts: CatalogDataSourceOptions): ServiceDataSourceOptions {
  return {
    url: opts.url,
    schema: opts.schema ?? DEFAULT_SCHEMA,
    entities: CATALOG_ENTITIES,
    migrations: CATALOG_MIGRATIONS,
    ...(opts.poolSize !== undefined ? { poolSize: opts.poolSize } : {}),
    ...(opts.logger ? { logger: opts.logger } : {}),
  };
}

/** The catalog's data source outside Nest, for the `migrate` command and tests (not initialised: `migrate()` does). */
export function createCatalogDataSource(opts: CatalogDataSourceOptions): DataSource {
  return createServiceDataSource(catalogDatabaseOptions(opts));
}
