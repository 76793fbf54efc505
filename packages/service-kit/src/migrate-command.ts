/** The `migrate` command every service with tables ships (`dist/migrate.js`: compose's and k8s's migrate step). */
import type { Logger } from 'pino';
import type { DataSource } from 'typeorm';
import { createLogger, type CreateLoggerOptions } from './logger.js';
import { migrate } from './migrate.js';

export interface MigrateCommand {
  logLevel: CreateLoggerOptions['level'];
  /** The service's data source on its own schema (one connection is enough). */
  dataSource: (logger: Logger) => DataSource;
  /** Work after the migrations, on the same connection: sealing stored secrets again under the current key. */
  afterMigrations?: (dataSource: DataSource, logger: Logger) => Promise<void>;
}

/**
 * Applies the service's pending migrations, runs `afterMigrations` and exits; any failure (a setting, the database)
 * is one line on stderr naming the service, and exit code 1.
 */
export function runMigrateCommand(service: string, command: () => MigrateCommand): void {
  const main = async () => {
    const { logLevel, dataSource: open, afterMigrations } = command();
    const logger = createLogger({ service, level: logLevel });
    const dataSource = open(logger);
    try {
      const ran = await migrate(dataSource);
      logger.info({ migrations: ran }, ran.length > 0 ? 'migrations applied' : 'schema up to date');
      await afterMigrations?.(dataSource, logger);
    } finally {
      if (dataSource.isInitialized) await dataSource.destroy();
    }
  };
  main().catch((err: unknown) => {
    process.stderr.write(`${service}: migration failed: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  });
}
