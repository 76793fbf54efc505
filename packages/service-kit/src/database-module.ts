import type { DynamicModule } from '@nestjs/common';
import { TypeOrmModule, type TypeOrmModuleAsyncOptions } from '@nestjs/typeorm';
import { DataSource, type DataSourceOptions } from 'typeorm';
import { serviceDataSourceOptions, type ServiceDataSourceOptions } from './database.js';
import { migrate } from './migrate.js';
import { StartupError, redactedUrl } from './startup/startup-error.js';

/**
 * A service's database as its entry point opens it: always migrated first (`migrate()`, which creates the schema and
 * serialises replicas that start together), as every service's boot has done.
 */
export interface ServiceDatabaseOptions extends ServiceDataSourceOptions {
  /** Runs once the database is open and migrated, before any module uses it (the catalog seals old secrets again). */
  afterOpen?: (dataSource: DataSource) => Promise<void>;
}

/**
 * Where a service's data source comes from: its own options (main.ts; opened, migrated and closed with the app), or
 * a data source a test made and migrated, on whose options the app opens a pool of its own, so that closing the app
 * leaves the test's data source open for its clean-up.
 */
export type ServiceDatabase = ServiceDatabaseOptions | DataSource;

/** The one line a failed open prints: names PostgreSQL, where (never a password) and the schema. */
function openFailure(opts: ServiceDatabaseOptions, what: string, err: unknown): StartupError {
  const message = err instanceof Error ? err.message : String(err);
  return new StartupError(
    'database',
    `PostgreSQL at ${redactedUrl(opts.url)}, schema "${opts.schema}": ${what} failed (${message.split('\n')[0]})`,
  );
}

async function openServiceDataSource(options: DataSourceOptions, opts: ServiceDatabaseOptions): Promise<DataSource> {
  const dataSource = new DataSource(options);
  try {
    const ran = await migrate(dataSource).catch((err: unknown) => {
      throw openFailure(opts, dataSource.isInitialized ? 'migrating' : 'connecting', err);
    });
    opts.logger?.info({ migrations: ran }, ran.length > 0 ? 'migrations applied' : 'schema up to date');
    await opts.afterOpen?.(dataSource);
    return dataSource;
  } catch (err) {
    if (dataSource.isInitialized) await dataSource.destroy().catch(() => undefined);
    throw err;
  }
}

/**
 * The `TypeOrmModule.forRootAsync` options of a service's database: its schema, entities, migrations, pool and
 * logger ({@link serviceDataSourceOptions}); migrated when opened, as every service's boot has done.
 */
export function serviceTypeOrmOptions(opts: ServiceDatabaseOptions): TypeOrmModuleAsyncOptions {
  return {
    // TypeORM's own `migrationsRun` stays off: migrate() adds the schema and the lock replicas starting together need.
    // toRetry: preflight has found PostgreSQL answering; a failure now is reported at once, not retried ten times.
    useFactory: () => ({ ...serviceDataSourceOptions(opts), toRetry: () => false }),
    dataSourceFactory: (options) => openServiceDataSource(options ?? serviceDataSourceOptions(opts), opts),
  };
}

/**
 * TypeORM's Nest module with the service's `DataSource` (the class is the injection token) and its entity manager,
 * for `TypeOrmModule.forFeature` repositories; it closes the pool when the app shuts down.
 */
export function serviceDatabaseModule(database: ServiceDatabase): DynamicModule {
  if (database instanceof DataSource) {
    const options = database.options;
    // toRetry: a database that fails to open is reported at once, not retried ten times three seconds apart.
    return TypeOrmModule.forRootAsync({ useFactory: () => ({ ...options, toRetry: () => false }) });
  }
  return TypeOrmModule.forRootAsync(serviceTypeOrmOptions(database));
}
