import type { DataSource } from 'typeorm';
import type { Logger } from 'pino';
import { createServiceDataSource } from '@conduit/service-kit';
import { Init1732400000000 } from '../migrations/1732400000000-init.js';
import { DEFAULT_SCHEMA } from './schema-name.js';

/** The service speaks SQL directly (upserts, aggregates, keyset pages), so it maps no entities. */
export const MONITORING_ENTITIES: Function[] = [];
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

/** The monitoring data source (not initialised: `migrate()` does that at boot). */
export function createMonitoringDataSource(opts: MonitoringDataSourceOptions): DataSource {
  return createServiceDataSource({
    url: opts.url,
    schema: opts.schema ?? DEFAULT_SCHEMA,
    entities: MONITORING_ENTITIES,
    migrations: MONITORING_MIGRATIONS,
    ...(opts.poolSize !== undefined ? { poolSize: opts.poolSize } : {}),
    ...(opts.logger ? { logger: opts.logger } : {}),
  });
}
