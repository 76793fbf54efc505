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
import { RedisStreamsServer } from '@conduit/rpc-streams';
import { AppModule } from './app.module.js';
import { bootConfig } from './boot-config.js';
import { createSchedulerDataSource } from './database/scheduler-data-source.js';
import { schedulerSettings } from './scheduler-settings.js';

async function main(): Promise<void> {
  const config = bootConfig();
  const logger = createLogger({ service: 'scheduler', level: config.LOG_LEVEL });
  const dataSource = createSchedulerDataSource({
    url: config.DATABASE_URL,
    schema: config.SCHEDULER_DB_SCHEMA,
    poolSize: config.SCHEDULER_DB_POOL_SIZE,
    logger,
  });
  const ran = await migrate(dataSource);
  logger.info({ migrations: ran }, ran.length > 0 ? 'migrations applied' : 'schema up to date');

  // Only for /readyz: the RPC transport and BullMQ keep connections of their own.
  const redis = new Redis(config.REDIS_URL, { maxRetriesPerRequest: 1 });
  const app = await NestFactory.create<NestFastifyApplication>(
    AppModule.forRoot({
      dataSource,
      logger,
      settings: schedulerSettings({
        redisUrl: config.REDIS_URL,
        redisPrefix: config.REDIS_PREFIX,
        catalogTimeoutMs: config.SCHEDULER_CATALOG_TIMEOUT_MS,
        outboxSweepMs: config.SCHEDULER_OUTBOX_SWEEP_MS,
        reaperIntervalMs: config.SCHEDULER_REAPER_INTERVAL_MS,
        runSilenceMs: config.SCHEDULER_RUN_SILENCE_MS,
      }),
      ops: {
        registry: createMetricsRegistry('scheduler'),
        checks: [dataSourceReadinessCheck(dataSource), redisReadinessCheck(redis)],
      },
      onShutdown: async () => {
        redis.disconnect();
        await dataSource.destroy();
      },
    }),
    new FastifyAdapter(),
    { logger: new NestPinoLogger(logger) },
  );
  app.connectMicroservice({
    strategy: new RedisStreamsServer({
      url: config.REDIS_URL,
      prefix: config.REDIS_PREFIX,
      service: 'scheduler',
      concurrency: config.SCHEDULER_RPC_CONCURRENCY,
    }),
  });
  app.enableShutdownHooks();
  await app.startAllMicroservices();
  await app.listen(config.SCHEDULER_PORT, config.HOST);
  logger.info({ port: config.SCHEDULER_PORT, host: config.HOST }, 'scheduler ready');
}

main().catch((err: unknown) => {
  process.stderr.write(`scheduler: failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
