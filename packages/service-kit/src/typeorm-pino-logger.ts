import type { Logger as TypeOrmLogger } from 'typeorm';
import type { Logger } from 'pino';

/**
 * Unique (23505) and foreign-key (23503) violations: the services answer them as the client's conflict (a 409
 * `name_taken` or `project_not_empty`, an idempotency key already used), not as a fault. One they do not map still
 * fails its RPC, which logs it at error (a 500).
 */
const ANSWERED_SQLSTATES = new Set(['23505', '23503']);

function isAnsweredViolation(error: string | Error): boolean {
  const code = typeof error === 'string' ? undefined : (error as { code?: unknown }).code;
  return typeof code === 'string' && ANSWERED_SQLSTATES.has(code);
}

/**
 * TypeORM's logging into pino. Query parameters are never logged: they carry user data and secrets.
 * Queries go to `trace`; migration progress (TypeORM's "schema build" messages, only at boot) to `info`;
 * slow queries to `warn`; failed queries and migrations to `error`, but for a violation the services answer as a
 * conflict, at `debug`: each taken name looked like an outage, with its query and stack.
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
    if (isAnsweredViolation(error)) this.logger.debug({ query, err: error }, 'query failed');
    else this.logger.error({ query, err: error }, 'query failed');
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
