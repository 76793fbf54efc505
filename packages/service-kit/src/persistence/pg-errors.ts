import { QueryFailedError } from 'typeorm';

const UNIQUE_VIOLATION = '23505';
const FOREIGN_KEY_VIOLATION = '23503';
const LOCK_NOT_AVAILABLE = '55P03';

function constraintOf(err: unknown, sqlState: string): string | undefined {
  if (!(err instanceof QueryFailedError)) return undefined;
  const driverError = err.driverError as { code?: unknown; constraint?: unknown };
  if (driverError.code !== sqlState) return undefined;
  return typeof driverError.constraint === 'string' ? driverError.constraint : '';
}

/** True when `err` is PostgreSQL's unique violation on that constraint (the race-safe way to detect a taken name). */
export function isUniqueViolation(err: unknown, constraint: string): boolean {
  return constraintOf(err, UNIQUE_VIOLATION) === constraint;
}

/** True when `err` is a foreign-key violation on that constraint. */
export function isForeignKeyViolation(err: unknown, constraint: string): boolean {
  return constraintOf(err, FOREIGN_KEY_VIOLATION) === constraint;
}

/** True when `err` is PostgreSQL's refusal to wait for a lock (`NOWAIT`, or `lock_timeout` passed). */
export function isLockNotAvailable(err: unknown): boolean {
  return constraintOf(err, LOCK_NOT_AVAILABLE) !== undefined;
}
