import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { Redis } from 'ioredis';
import {
  NestPinoLogger,
  createLogger,
  createMetricsRegistry,
  dataSourceReadinessCheck,
  migrate,
  redisReadinessCheck,
} from '@conduit/service-kit';
import { RedisStreamsClient, RedisStreamsServer } from '@conduit/rpc-streams';
import { AppModule } from './app.module.js';
import { bootConfig } from './boot-config.js';
import { createCatalogDataSource } from './database/catalog-data-source.js';
import { SchedulerPipelineUsage } from './pipelines/scheduler-pipeline-usage.js';

async function main(): Promise<void> {
  const config = bootConfig();
  const logger = createLogger({ service: 'catalog', level: config.LOG_LEVEL });
  const dataSource = createCatalogDataSource({
    url: config.DATABASE_URL,
    schema: config.CATALOG_DB_SCHEMA,
    poolSize: config.CATALOG_DB_POOL_SIZE,
    logger,
  });
  const ran = await migrate(dataSource);
  logger.info({ migrations: ran }, ran.length > 0 ? 'migrations applied' : 'schema up to date');

  // Only for /readyz: the RPC transport keeps connections of its own.
  const redis = new Redis(config.REDIS_URL, { maxRetriesPerRequest: 1 });
  // Jobs belong to the scheduler: deleting a pipeline asks it whether one still uses it.
  const scheduler = new RedisStreamsClient({ url: config.REDIS_URL, prefix: config.REDIS_PREFIX });
  await scheduler.connect();
  const app = await NestFactory.create<NestFastifyApplication>(
    AppModule.forRoot({
      dataSource,
      logger,
      secretsKey: config.SECRETS_KEY,
      pipelineUsage: new SchedulerPipelineUsage(scheduler),
      ops: {
        registry: createMetricsRegistry('catalog'),
        checks: [dataSourceReadinessCheck(dataSource), redisReadinessCheck(redis)],
      },
      onShutdown: async () => {
        redis.disconnect();
        await scheduler.close();
        await dataSource.destroy();
      },
    }),
    new FastifyAdapter(),
    { logger: new NestPinoLogger(logger) },
  );
  app.connectMicroservice(
    {
      strategy: new RedisStreamsServer({
        url: config.REDIS_URL,
        prefix: config.REDIS_PREFIX,
        service: 'catalog',
        concurrency: config.CATALOG_RPC_CONCURRENCY,
      }),
    },
    // So that the global RpcLogInterceptor also wraps the RPC handlers.
    { inheritAppConfig: true },
  );
  app.enableShutdownHooks();
  await app.startAllMicroservices();
  await app.listen(config.CATALOG_PORT, config.HOST);
  logger.info({ port: config.CATALOG_PORT, host: config.HOST }, 'catalog ready');
}

main().catch((err: unknown) => {
  process.stderr.write(`catalog: failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
