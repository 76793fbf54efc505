import 'reflect-metadata';
import { runMigrateCommand } from '@conduit/service-kit';
import { bootConfig } from './boot-config.js';
import { createSchedulerDataSource } from './database/scheduler-data-source.js';

/** The `migrate` command: applies pending migrations of the scheduler schema and exits. */
runMigrateCommand('scheduler', () => {
  const config = bootConfig();
  return {
    logLevel: config.LOG_LEVEL,
    dataSource: (logger) =>
      createSchedulerDataSource({ url: config.DATABASE_URL, schema: config.SCHEDULER_DB_SCHEMA, poolSize: 1, logger }),
  };
});
