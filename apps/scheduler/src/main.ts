import 'reflect-metadata';
import { createLogger, preflight, runService, startRpcService } from '@conduit/service-kit';
import { AppModule } from './app.module.js';
import { bootConfig } from './boot-config.js';
import { schedulerDatabaseOptions } from './database/scheduler-data-source.js';
import { schedulerSettings } from './scheduler-settings.js';
import { armFaultPoint } from './faults/fault-point.js';

runService('scheduler', async () => {
  const config = bootConfig();
  const logger = createLogger({ service: 'scheduler', level: config.LOG_LEVEL });
  await preflight({
    databaseUrl: config.DATABASE_URL,
    redisUrl: config.REDIS_URL,
    ports: [{ variable: 'SCHEDULER_PORT', port: config.SCHEDULER_PORT, host: config.HOST }],
  });
  armFaultPoint(config.SCHEDULER_FAULT_POINT);
  if (config.SCHEDULER_FAULT_POINT && config.NODE_ENV !== 'production')
    logger.warn({ fault_point: config.SCHEDULER_FAULT_POINT }, 'test fault point armed');
  // Opened and migrated as the app starts (serviceDatabaseModule), before any module uses it.
  const database = schedulerDatabaseOptions({
    url: config.DATABASE_URL,
    schema: config.SCHEDULER_DB_SCHEMA,
    poolSize: config.SCHEDULER_DB_POOL_SIZE,
    logger,
  });

  await startRpcService({
    name: 'scheduler',
    logger,
    redisUrl: config.REDIS_URL,
    redisPrefix: config.REDIS_PREFIX,
    rpcConcurrency: config.SCHEDULER_RPC_CONCURRENCY,
    port: config.SCHEDULER_PORT,
    host: config.HOST,
    module: (ops, onShutdown) =>
      AppModule.forRoot({
        database,
        logger,
        settings: schedulerSettings({
          redisUrl: config.REDIS_URL,
          redisPrefix: config.REDIS_PREFIX,
          catalogTimeoutMs: config.SCHEDULER_CATALOG_TIMEOUT_MS,
          snapshotHoldMs: config.SCHEDULER_SNAPSHOT_HOLD_MS,
          outboxSweepMs: config.SCHEDULER_OUTBOX_SWEEP_MS,
          reaperIntervalMs: config.SCHEDULER_REAPER_INTERVAL_MS,
          runSilenceMs: config.SCHEDULER_RUN_SILENCE_MS,
          stalledGraceMs: config.SCHEDULER_STALLED_GRACE_MS,
          queuedRunTimeoutMs: config.SCHEDULER_QUEUED_RUN_TIMEOUT_MS,
          webhookTenantsDistrustMs: config.SCHEDULER_WEBHOOK_TENANTS_DISTRUST_MS,
          faultCommitDelayMs: config.SCHEDULER_FAULT_COMMIT_DELAY_MS,
        }),
        ops,
        onShutdown,
      }),
  });
});
