import { DataSource, type DataSourceOptions, type Logger as TypeOrmLogger } from 'typeorm';
import type { Logger } from 'pino';
import { TypeOrmPinoLogger } from './typeorm-pino-logger.js';

/** A class TypeORM is given: an entity or a migration. */
export type ServiceClass = abstract new (...args: never[]) => unknown;

export interface ServiceDataSourceOptions {
  /** `postgres://` connection URL. */
  url: string;
  /** The service's own schema (lower-case identifier, e.g. `catalog`); it also holds the `migrations` table. */
  schema: string;
  entities: ServiceClass[];
  migrations: ServiceClass[];
  /** Receives TypeORM's logging; without it TypeORM logs nothing. */
  logger?: Logger;
  /** Maximum pooled connections. Default: 10. */
  poolSize?: number;
  /** Queries slower than this are logged as warnings. Default: 1000 ms. */
  slowQueryMs?: number;
}

const SILENT_TYPEORM_LOGGER: TypeOrmLogger = {
  logQuery: () => undefined,
  logQueryError: () => undefined,
  logQuerySlow: () => undefined,
  logSchemaBuild: () => undefined,
  logMigration: () => undefined,
  log: () => undefined,
};

const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/**
 * The TypeORM options of one service's schema: migrations only (never `synchronize`), the migrations table inside
 * that schema, and `search_path` set to the schema so unqualified SQL lands there.
 */
export function serviceDataSourceOptions(opts: ServiceDataSourceOptions): DataSourceOptions {
  if (!SCHEMA_NAME.test(opts.schema)) {
    throw new Error(`service database: schema "${opts.schema}" must be a lower-case SQL identifier`);
  }
  return {
    type: 'postgres',
    url: opts.url,
    schema: opts.schema,
    entities: opts.entities,
    migrations: opts.migrations,
    migrationsTableName: 'migrations',
    migrationsTransactionMode: 'each',
    synchronize: false,
    migrationsRun: false,
    poolSize: opts.poolSize ?? 10,
    applicationName: opts.schema,
    // A database that accepts the connection but never answers (hung, network partition) fails the request, a 503,
    // instead of holding it: node-postgres waits for ever by default.
    connectTimeoutMS: 3000,
    maxQueryExecutionTime: opts.slowQueryMs ?? 1000,
    // TypeORM's own console logger prints plain text (even with logging off), which would break JSON log lines.
    logger: opts.logger ? new TypeOrmPinoLogger(opts.logger) : SILENT_TYPEORM_LOGGER,
    extra: { options: `-c search_path=${opts.schema},public` },
  };
}

/**
 * The data source of {@link serviceDataSourceOptions}, for the code that opens one outside Nest (the `migrate`
 * command, tests). Not initialised: call `migrate()` (or `initialize()`).
 */
export function createServiceDataSource(opts: ServiceDataSourceOptions): DataSource {
  return new DataSource(serviceDataSourceOptions(opts));
}

/** The schema a data source was created for (falls back to `public`). */
export function schemaOf(ds: DataSource): string {
  const options = ds.options as { schema?: string };
  return options.schema ?? 'public';
}
