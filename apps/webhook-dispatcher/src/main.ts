import 'reflect-metadata';
import { createLogger, logReseal, preflight, runService, startRpcService } from '@conduit/service-kit';
import { SecretBox, secretKeysOf } from '@conduit/secrets';
import { knowPlatformServices } from '@conduit/connectors';
import type { DataSource } from 'typeorm';
import { AppModule } from './app.module.js';
import { bootConfig } from './boot-config.js';
import { dispatcherDatabaseOptions } from './database/dispatcher-data-source.js';
import { dispatcherSettings } from './dispatcher-settings.js';
import { resealWebhookSecrets } from './webhooks/webhook-reseal.js';

runService('webhook-dispatcher', async () => {
  const config = bootConfig();
  // Webhook URLs may never name the platform's PostgreSQL or Redis, also where the environment leaves them to defaults.
  knowPlatformServices(config);
  const logger = createLogger({ service: 'webhook-dispatcher', level: config.LOG_LEVEL });
  await preflight({
    databaseUrl: config.DATABASE_URL,
    redisUrl: config.REDIS_URL,
    ports: [{ variable: 'WEBHOOK_DISPATCHER_PORT', port: config.WEBHOOK_DISPATCHER_PORT, host: config.HOST }],
  });
  const secretKeys = secretKeysOf(config);
  // Opened and migrated as the app starts (serviceDatabaseModule), before any module uses it.
  const database = {
    ...dispatcherDatabaseOptions({
      url: config.DATABASE_URL,
      schema: config.WEBHOOK_DB_SCHEMA,
      poolSize: config.WEBHOOK_DB_POOL_SIZE,
      logger,
    }),
    // Older formats and previous keys' values keep opening meanwhile: this only makes them current.
    afterOpen: async (dataSource: DataSource) =>
      logReseal(logger, await resealWebhookSecrets(dataSource, new SecretBox(secretKeys))),
  };
  if (config.WEBHOOK_ALLOW_HTTP || config.WEBHOOK_ALLOW_PRIVATE_NETWORKS) {
    logger.warn(
      { allow_http: config.WEBHOOK_ALLOW_HTTP, allow_private_networks: config.WEBHOOK_ALLOW_PRIVATE_NETWORKS },
      'webhook network policy relaxed: for development only',
    );
  }

  await startRpcService({
    name: 'webhook-dispatcher',
    rpcService: 'webhooks',
    logger,
    redisUrl: config.REDIS_URL,
    redisPrefix: config.REDIS_PREFIX,
    rpcConcurrency: config.WEBHOOK_RPC_CONCURRENCY,
    port: config.WEBHOOK_DISPATCHER_PORT,
    host: config.HOST,
    module: (ops, onShutdown) =>
      AppModule.forRoot({
        database,
        logger,
        settings: dispatcherSettings({
          redisUrl: config.REDIS_URL,
          redisPrefix: config.REDIS_PREFIX,
          secretsKey: secretKeys,
          allowHttp: config.WEBHOOK_ALLOW_HTTP,
          allowPrivateNetworks: config.WEBHOOK_ALLOW_PRIVATE_NETWORKS,
          retryScheduleMs: config.WEBHOOK_RETRY_SCHEDULE,
          timeoutMs: config.WEBHOOK_TIMEOUT_MS,
          disableAfterMs: config.WEBHOOK_DISABLE_AFTER,
          deliveryConcurrency: config.WEBHOOK_DELIVERY_CONCURRENCY,
          sweepMs: config.WEBHOOK_SWEEP_MS,
        }),
        ops,
        onShutdown,
      }),
  });
});
