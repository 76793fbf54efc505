import 'reflect-metadata';
import { createLogger, migrate, preflight, runService, startRpcService } from '@conduit/service-kit';
import { AppModule } from './app.module.js';
import { bootConfig } from './boot-config.js';
import { createMonitoringDataSource } from './database/monitoring-data-source.js';
import { monitoringSettings } from './monitoring-settings.js';

runService('monitoring', async () => {
  const config = bootConfig();
  const logger = createLogger({ service: 'monitoring', level: config.LOG_LEVEL });
  await preflight({
    databaseUrl: config.DATABASE_URL,
    redisUrl: config.REDIS_URL,
    ports: [{ variable: 'MONITORING_PORT', port: config.MONITORING_PORT, host: config.HOST }],
  });
  const dataSource = createMonitoringDataSource({
    url: config.DATABASE_URL,
    schema: config.MONITORING_DB_SCHEMA,
    poolSize: config.MONITORING_DB_POOL_SIZE,
    logger,
  });
  const ran = await migrate(dataSource);
  logger.info({ migrations: ran }, ran.length > 0 ? 'migrations applied' : 'schema up to date');

  await startRpcService({
    name: 'monitoring',
    logger,
    dataSource,
    redisUrl: config.REDIS_URL,
    redisPrefix: config.REDIS_PREFIX,
    rpcConcurrency: config.MONITORING_RPC_CONCURRENCY,
    port: config.MONITORING_PORT,
    host: config.HOST,
    module: (ops, onShutdown) =>
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
        registry: ops.registry,
        readiness: ops.checks,
        onShutdown,
      }),
  });
});
