import type { DataSource } from 'typeorm';
import type { Logger } from 'pino';
import { createServiceDataSource, type ServiceDataSourceOptions } from '@conduit/service-kit';
import { JobEntity } from '../jobs/job.entity.js';
import { RunEntity } from '../runs/run.entity.js';
import { ProcessedEventEntity } from '../runs/processed-event.entity.js';
import { OutboxMessageEntity } from '../outbox/outbox-message.entity.js';
import { Init1732300000000 } from '../migrations/1732300000000-init.js';
import { RunNodeColumns1764025000000 } from '../migrations/1764025000000-run-node-columns.js';
import { RunClaims1764095000000 } from '../migrations/1764095000000-run-claims.js';
import { IdempotencyKeys1764110000000 } from '../migrations/1764110000000-idempotency-keys.js';
import { JobNextFire1764200000000 } from '../migrations/1764200000000-job-next-fire.js';
import { ScheduledRunsOutbox1764300000000 } from '../migrations/1764300000000-scheduled-runs-outbox.js';
import { DEFAULT_SCHEMA } from './schema-name.js';

export const SCHEDULER_ENTITIES = [JobEntity, RunEntity, ProcessedEventEntity, OutboxMessageEntity];
/** In order; append new migrations here. */
export const SCHEDULER_MIGRATIONS = [
  Init1732300000000,
  RunNodeColumns1764025000000,
  RunClaims1764095000000,
  IdempotencyKeys1764110000000,
  JobNextFire1764200000000,
  ScheduledRunsOutbox1764300000000,
];

export interface SchedulerDataSourceOptions {
  url: string;
  /** Default `scheduler`. */
  schema?: string;
  /** Default 10. */
  poolSize?: number;
  logger?: Logger;
}

/** The scheduler's schema, entities and migrations, for `serviceDatabaseModule` (the app) and the data source below. */
export function schedulerDatabaseOptions(opts: SchedulerDataSourceOptions): ServiceDataSourceOptions {
  return {
    url: opts.url,
    schema: opts.schema ?? DEFAULT_SCHEMA,
    entities: SCHEDULER_ENTITIES,
    migrations: SCHEDULER_MIGRATIONS,
    ...(opts.poolSize !== undefined ? { poolSize: opts.poolSize } : {}),
    ...(opts.logger ? { logger: opts.logger } : {}),
  };
}

/** The scheduler's data source outside Nest, for the `migrate` command and tests (not initialised: `migrate()` does). */
export function createSchedulerDataSource(opts: SchedulerDataSourceOptions): DataSource {
  return createServiceDataSource(schedulerDatabaseOptions(opts));
}
