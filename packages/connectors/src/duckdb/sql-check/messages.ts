/**
 * The messages between a process and its SQL-check child (isolated-check.ts, child.ts), over Node's IPC channel:
 * one request per check or bind, one answer per request, matched by `id`. Both sides read them with these guards.
 */
import type { BindInput, BindOutcome } from '../sql-binder.js';
import type { UserSqlKind } from '../user-sql.js';

/** `check`: userSqlProblem of `sql`. `bind`: bindUserSql of `sql` against `inputs` (tables declared by columns). */
export type SqlCheckWork =
  { op: 'check'; sql: string; kind: UserSqlKind } | { op: 'bind'; sql: string; inputs: BindInput[] };

export type SqlCheckRequest = SqlCheckWork & { id: number };

/**
 * `problem`: the checker's message, or null when the SQL may run. `outcome`: what binding answered. `failed`: the
 * work itself failed (not a verdict).
 */
export type SqlCheckAnswer =
  { id: number; problem: string | null } | { id: number; outcome: BindOutcome } | { id: number; failed: string };

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;

const isBindInput = (value: unknown): value is BindInput =>
  isRecord(value) &&
  typeof value['name'] === 'string' &&
  Array.isArray(value['columns']) &&
  value['columns'].every((c) => isRecord(c) && typeof c['name'] === 'string' && typeof c['type'] === 'string');

export function isSqlCheckRequest(value: unknown): value is SqlCheckRequest {
  if (!isRecord(value) || !Number.isSafeInteger(value['id']) || typeof value['sql'] !== 'string') return false;
  if (value['op'] === 'check') return value['kind'] === 'select' || value['kind'] === 'statement';
  return value['op'] === 'bind' && Array.isArray(value['inputs']) && value['inputs'].every(isBindInput);
}

const BIND_KINDS: ReadonlySet<unknown> = new Set([
  'bound',
  'undeclared',
  'unknown_table',
  'unknown_column',
  'unbindable',
  'not_allowed',
]);

export function isSqlCheckAnswer(value: unknown): value is SqlCheckAnswer {
  if (!isRecord(value) || !Number.isSafeInteger(value['id'])) return false;
  if ('failed' in value) return typeof value['failed'] === 'string';
  if ('outcome' in value) return isRecord(value['outcome']) && BIND_KINDS.has(value['outcome']['kind']);
  return value['problem'] === null || typeof value['problem'] === 'string';
}
