import type { DataSource } from 'typeorm';
import type { Logger } from 'pino';
import { createServiceDataSource, type ServiceDataSourceOptions } from '@conduit/service-kit';
import { WebhookEntity } from '../webhooks/webhook.entity.js';
import { DeliveryEntity } from '../deliveries/delivery.entity.js';
import { Init1733000000000 } from '../migrations/1733000000000-init.js';
import { IdempotencyKeys1764110000000 } from '../migrations/1764110000000-idempotency-keys.js';
import { SubscriptionsVersion1764120000000 } from '../migrations/1764120000000-subscriptions-version.js';
import { DEFAULT_SCHEMA } from './schema-name.js';

export const DISPATCHER_ENTITIES = [WebhookEntity, DeliveryEntity];
/** In order; append new migrations here. */
export const DISPATCHER_MIGRATIONS = [
  Init1733000000000,
  IdempotencyKeys1764110000000,
  SubscriptionsVersion1764120000000,
];

export interface DispatcherDataSourceOptions {
  url: string;
  /** Default `webhooks`. */
  schema?: string;
  /** Default 10. */
  poolSize?: number;
  logger?: Logger;
}

/** The dispatcher's schema, entities and migrations, for `serviceDatabaseModule` (the app) and the data source below. */
export function dispatcherDatabaseOptions(opts: DispatcherDataSourceOptions): ServiceDataSourceOptions {
  return {
    url: opts.url,
    schema: opts.schema ?? DEFAULT_SCHEMA,
    entities: DISPATCHER_ENTITIES,
    migrations: DISPATCHER_MIGRATIONS,
    ...(opts.poolSize !== undefined ? { poolSize: opts.poolSize } : {}),
    ...(opts.logger ? { logger: opts.logger } : {}),
  };
}

/** The dispatcher's data source outside Nest, for the `migrate` command and tests (not initialised: `migrate()` does). */
export function createDispatcherDataSource(opts: DispatcherDataSourceOptions): DataSource {
  return createServiceDataSource(dispatcherDatabaseOptions(opts));
}
