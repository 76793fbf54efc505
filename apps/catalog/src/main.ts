import 'reflect-metadata';
import { createLogger, logReseal, preflight, runService, startRpcService } from '@conduit/service-kit';
import { secretKeysOf } from '@conduit/secrets';
import { RedisStreamsClient } from '@conduit/rpc-streams';
import type { DataSource } from 'typeorm';
import { AppModule } from './app.module.js';
import { knowPlatformServices } from '@conduit/connectors';
import { bootConfig } from './boot-config.js';
import { catalogDatabaseOptions } from './database/catalog-data-source.js';
import { ConnectorSecrets } from './connectors/connector-secrets.js';
import { resealConnectorSecrets } from './connectors/connector-reseal.js';
import { SchedulerPipelineUsage } from './pipelines/scheduler-pipeline-usage.js';
import { SchedulerRecordedSchemas } from './pipelines/scheduler-recorded-schemas.js';
import { RedisCatalogChanges } from './common/catalog-changes.js';

runService('catalog', async () => {
  const config = bootConfig();
  // Connectors refuse the platform's own PostgreSQL and Redis, also where only the config's defaults name them.
  knowPlatformServices(config);
  const logger = createLogger({ service: 'catalog', level: config.LOG_LEVEL });
  await preflight({
    databaseUrl: config.DATABASE_URL,
    redisUrl: config.REDIS_URL,
    ports: [{ variable: 'CATALOG_PORT', port: config.CATALOG_PORT, host: config.HOST }],
  });
  const secretKeys = secretKeysOf(config);
  const database = {
    ...catalogDatabaseOptions({
      url: config.DATABASE_URL,
      schema: config.CATALOG_DB_SCHEMA,
      poolSize: config.CATALOG_DB_POOL_SIZE,
      logger,
    }),
    // Older formats and previous keys' values keep opening meanwhile: this only makes them current.
    afterOpen: async (dataSource: DataSource) =>
      logReseal(logger, await resealConnectorSecrets(dataSource, new ConnectorSecrets(secretKeys))),
  };

  // Jobs and runs belong to the scheduler: deleting a pipeline asks it whether a job still uses it, and validation
  // asks it what columns earlier runs recorded for the pipeline's sources.
  const scheduler = new RedisStreamsClient({ url: config.REDIS_URL, prefix: config.REDIS_PREFIX });
  await scheduler.connect();
  const catalogChanges = new RedisCatalogChanges(
    { redisUrl: config.REDIS_URL, redisPrefix: config.REDIS_PREFIX },
    logger,
  );
  await startRpcService({
    name: 'catalog',
    logger,
    redisUrl: config.REDIS_URL,
    redisPrefix: config.REDIS_PREFIX,
    rpcConcurrency: config.CATALOG_RPC_CONCURRENCY,
    port: config.CATALOG_PORT,
    host: config.HOST,
    module: (ops, onShutdown) =>
      AppModule.forRoot({
        database,
        logger,
        secretsKey: secretKeys,
        pipelineUsage: new SchedulerPipelineUsage(scheduler),
        recordedSchemas: new SchedulerRecordedSchemas(scheduler),
        catalogChanges,
        ops,
        onShutdown,
      }),
    closeAlso: async () => {
      await Promise.all([scheduler.close(), catalogChanges.close()]);
    },
    // So that the global RpcLogInterceptor also wraps the RPC handlers.
    inheritAppConfig: true,
  });
});
