import 'reflect-metadata';
import { createLogger, preflight, runService, startRpcService } from '@conduit/service-kit';
import { AppModule } from './app.module.js';
import { bootConfig } from './boot-config.js';
import { monitoringDatabaseOptions } from './database/monitoring-data-source.js';
import { monitoringSettings } from './monitoring-settings.js';

runService('monitoring', async () => {
  const config = bootConfig();
  const logger = createLogger({ service: 'monitoring', level: config.LOG_LEVEL });
  await preflight({
    databaseUrl: config.DATABASE_URL,
    redisUrl: config.REDIS_URL,
    ports: [{ variable: 'MONITORING_PORT', port: config.MONITORING_PORT, host: config.HOST }],
  });
  // Opened and migrated as the app starts (serviceDatabaseModule), before any module uses it.
  const database = monitoringDatabaseOptions({
    url: config.DATABASE_URL,
    schema: config.MONITORING_DB_SCHEMA,
    poolSize: config.MONITORING_DB_POOL_SIZE,
    logger,
  });

  await startRpcService({
    name: 'monitoring',
    logger,
    redisUrl: config.REDIS_URL,
    redisPrefix: config.REDIS_PREFIX,
    rpcConcurrency: config.MONITORING_RPC_CONCURRENCY,
    port: config.MONITORING_PORT,
    host: config.HOST,
    module: (ops, onShutdown) =>
      AppModule.forRoot({
        database,
        logger,
        settings: monitoringSettings({
          redisUrl: config.REDIS_URL,
          redisPrefix: config.REDIS_PREFIX,
          logRetentionDays: config.LOG_RETENTION_DAYS,
          cleanupIntervalMs: config.MONITORING_CLEANUP_INTERVAL_MS,
          outboxSweepMs: config.MONITORING_OUTBOX_SWEEP_MS,
        }),
        registry: ops.registry,
        readiness: ops.checks,
        onShutdown,
      }),
  });
});
