import type { DataSource } from 'typeorm';
import type { Logger } from 'pino';
import { createServiceDataSource, type ServiceClass, type ServiceDataSourceOptions } from '@conduit/service-kit';
import { Init1732400000000 } from '../migrations/1732400000000-init.js';
import { DEFAULT_SCHEMA } from './schema-name.js';

/** The service speaks SQL directly (upserts, aggregates, keyset pages), so it maps no entities. */
export const MONITORING_ENTITIES: ServiceClass[] = [];
/** In order; append new migrations here. */
export const MONITORING_MIGRATIONS = [Init1732400000000];

export interface MonitoringDataSourceOptions {
  url: string;
  /** Default `monitoring`. */
  schema?: string;
  /** Default 10. */
  poolSize?: number;
  logger?: Logger;
}

/** The monitoring schema, entities and migrations, for `serviceDatabaseModule` (the app) and the data source below. */
export function monitoringDatabaseOptions(opts: MonitoringDataSourceOptions): ServiceDataSourceOptions {
  return {
    url: opts.url,
    schema: opts.schema ?? DEFAULT_SCHEMA,
    entities: MONITORING_ENTITIES,
    migrations: MONITORING_MIGRATIONS,
    ...(opts.poolSize !== undefined ? { poolSize: opts.poolSize } : {}),
    ...(opts.logger ? { logger: opts.logger } : {}),
  };
}

/** The monitoring data source outside Nest, for the `migrate` command and tests (not initialised: `migrate()` does). */
export function createMonitoringDataSource(opts: MonitoringDataSourceOptions): DataSource {
  return createServiceDataSource(monitoringDatabaseOptions(opts));
}
