import type { Logger as TypeOrmLogger } from 'typeorm';
import type { Logger } from 'pino';

/**
 * TypeORM's logging into pino. Query parameters are never logged: they carry user data and secrets.
 * Queries go to `trace`; migration progress (TypeORM's "schema build" messages, only at boot) to `info`;
 * slow queries to `warn`; failed queries and migrations to `error`.
 */
export class TypeOrmPinoLogger implements TypeOrmLogger {
  private readonly logger: Logger;

  constructor(logger: Logger) {
    this.logger = logger.child({ component: 'typeorm' });
  }

  logQuery(query: string): void {
    this.logger.trace({ query }, 'query');
  }

  logQueryError(error: string | Error, query: string): void {
    this.logger.error({ query, err: error }, 'query failed');
  }

  logQuerySlow(time: number, query: string): void {
    this.logger.warn({ query, duration_ms: time }, 'slow query');
  }

  logSchemaBuild(message: string): void {
    this.logger.info(message);
  }

  /** TypeORM calls this only when a migration fails. */
  logMigration(message: string): void {
    this.logger.error(message);
  }

  log(level: 'log' | 'info' | 'warn', message: unknown): void {
    const text = typeof message === 'string' ? message : JSON.stringify(message);
    if (level === 'warn') this.logger.warn(text);
    else this.logger.info(text);
  }
}
