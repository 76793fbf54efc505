import 'reflect-metadata';
import { runMigrateCommand } from '@conduit/service-kit';
import { bootConfig } from './boot-config.js';
import { createMonitoringDataSource } from './database/monitoring-data-source.js';

/** The `migrate` command: applies pending migrations of the monitoring schema and exits. */
runMigrateCommand('monitoring', () => {
  const config = bootConfig();
  return {
    logLevel: config.LOG_LEVEL,
    dataSource: (logger) =>
      createMonitoringDataSource({
        url: config.DATABASE_URL,
        schema: config.MONITORING_DB_SCHEMA,
        poolSize: 1,
        logger,
      }),
  };
});
