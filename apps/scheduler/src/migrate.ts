import 'reflect-metadata';
import { createLogger, migrate } from '@conduit/service-kit';
import { bootConfig } from './boot-config.js';
import { createSchedulerDataSource } from './database/scheduler-data-source.js';

/** The `migrate` command: applies pending migrations of the scheduler schema and exits. */
async function main(): Promise<void> {
  const config = bootConfig();
  const logger = createLogger({ service: 'scheduler', level: config.LOG_LEVEL });
  const dataSource = createSchedulerDataSource({
    url: config.DATABASE_URL,
    schema: config.SCHEDULER_DB_SCHEMA,
    poolSize: 1,
    logger,
  });
  try {
    const ran = await migrate(dataSource);
    logger.info({ migrations: ran }, ran.length > 0 ? 'migrations applied' : 'schema up to date');
  } finally {
    if (dataSource.isInitialized) await dataSource.destroy();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`scheduler: migration failed: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
