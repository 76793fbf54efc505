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
import { createDispatcherDataSource } from './database/dispatcher-data-source.js';
import { dispatcherSettings } from './dispatcher-settings.js';

async function main(): Promise<void> {
  const config = bootConfig();
  const logger = createLogger({ service: 'webhook-dispatcher', level: config.LOG_LEVEL });
  const dataSource = createDispatcherDataSource({
    url: config.DATABASE_URL,
    schema: config.WEBHOOK_DB_SCHEMA,
    poolSize: config.WEBHOOK_DB_POOL_SIZE,
    logger,
  });
  const ran = await migrate(dataSource);
  logger.info({ migrations: ran }, ran.length > 0 ? 'migrations applied' : 'schema up to date');
  if (config.WEBHOOK_ALLOW_HTTP || config.WEBHOOK_ALLOW_PRIVATE_NETWORKS) {
    logger.warn({ allow_http: config.WEBHOOK_ALLOW_HTTP, allow_private_networks: config.WEBHOOK_ALLOW_PRIVATE_NETWORKS }, 'webhook network policy relaxed: for development only');
  }

  // Only for /readyz: the RPC transport and BullMQ keep connections of their own.
  const redis = new Redis(config.REDIS_URL, { maxRetriesPerRequest: 1 });
  const app = await NestFactory.create<NestFastifyApplication>(
    AppModule.forRoot({
      dataSource,
      logger,
      settings: dispatcherSettings({
        redisUrl: config.REDIS_URL,
        redisPrefix: config.REDIS_PREFIX,
        secretsKey: config.SECRETS_KEY,
        allowHttp: config.WEBHOOK_ALLOW_HTTP,
        allowPrivateNetworks: config.WEBHOOK_ALLOW_PRIVATE_NETWORKS,
        retryScheduleMs: config.WEBHOOK_RETRY_SCHEDULE,
        timeoutMs: config.WEBHOOK_TIMEOUT_MS,
        disableAfterMs: config.WEBHOOK_DISABLE_AFTER,
        deliveryConcurrency: config.WEBHOOK_DELIVERY_CONCURRENCY,
        sweepMs: config.WEBHOOK_SWEEP_MS,
      }),
      ops: {
        registry: createMetricsRegistry('webhook-dispatcher'),
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
      service: 'webhooks',
      concurrency: config.WEBHOOK_RPC_CONCURRENCY,
    }),
  });
  app.enableShutdownHooks();
  await app.startAllMicroservices();
  await app.listen(config.WEBHOOK_DISPATCHER_PORT, config.HOST);
  logger.info({ port: config.WEBHOOK_DISPATCHER_PORT, host: config.HOST }, 'webhook-dispatcher ready');
}

main().catch((err: unknown) => {
  process.stderr.write(`webhook-dispatcher: failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
