/**
 * The messages between a process and its SQL-check child (isolated-check.ts, child.ts), over Node's IPC channel:
 * one request per check, one answer per request, matched by `id`. Both sides read them with these guards.
 */
import type { UserSqlKind } from '../user-sql.js';

export interface SqlCheckRequest {
  id: number;
  sql: string;
  kind: UserSqlKind;
}

/** `problem`: the checker's message, or null when the SQL may run. `failed`: the check itself failed (not a verdict). */
export type SqlCheckAnswer = { id: number; problem: string | null } | { id: number; failed: string };

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;

export function isSqlCheckRequest(value: unknown): value is SqlCheckRequest {
  return (
    isRecord(value) &&
    Number.isSafeInteger(value['id']) &&
    typeof value['sql'] === 'string' &&
    (value['kind'] === 'select' || value['kind'] === 'statement')
  );
}

export function isSqlCheckAnswer(value: unknown): value is SqlCheckAnswer {
  if (!isRecord(value) || !Number.isSafeInteger(value['id'])) return false;
  if ('failed' in value) return typeof value['failed'] === 'string';
  return value['problem'] === null || typeof value['problem'] === 'string';
}
