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
import { createMonitoringDataSource } from './database/monitoring-data-source.js';
import { monitoringSettings } from './monitoring-settings.js';

async function main(): Promise<void> {
  const config = bootConfig();
  const logger = createLogger({ service: 'monitoring', level: config.LOG_LEVEL });
  const dataSource = createMonitoringDataSource({
    url: config.DATABASE_URL,
    schema: config.MONITORING_DB_SCHEMA,
    poolSize: config.MONITORING_DB_POOL_SIZE,
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
      settings: monitoringSettings({
        redisUrl: config.REDIS_URL,
        redisPrefix: config.REDIS_PREFIX,
        logRetentionDays: config.LOG_RETENTION_DAYS,
        cleanupIntervalMs: config.MONITORING_CLEANUP_INTERVAL_MS,
        outboxSweepMs: config.MONITORING_OUTBOX_SWEEP_MS,
      }),
      registry: createMetricsRegistry('monitoring'),
      readiness: [dataSourceReadinessCheck(dataSource), redisReadinessCheck(redis)],
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
      service: 'monitoring',
      concurrency: config.MONITORING_RPC_CONCURRENCY,
    }),
  });
  app.enableShutdownHooks();
  await app.startAllMicroservices();
  await app.listen(config.MONITORING_PORT, config.HOST);
  logger.info({ port: config.MONITORING_PORT, host: config.HOST }, 'monitoring ready');
}

main().catch((err: unknown) => {
  process.stderr.write(`monitoring: failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
