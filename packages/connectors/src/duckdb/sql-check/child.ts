/**
 * The SQL-check child process (isolated-check.ts): checks each request with userSqlProblem, or binds it with
 * bindUserSql, and answers it. It runs under a data-size limit set by its parent, so a statement whose binding folds
 * a huge constant fails to allocate instead of growing the process; one that binds for long is ended by the parent
 * killing this process. It exits when its parent goes.
 */
import { bindUserSql } from '../sql-binder.js';
import { userSqlProblem } from '../user-sql.js';
import { isSqlCheckRequest, type SqlCheckAnswer, type SqlCheckRequest } from './messages.js';

const answer = (message: SqlCheckAnswer): void => {
  process.send?.(message);
};

async function answerOf(request: SqlCheckRequest): Promise<SqlCheckAnswer> {
  const { id } = request;
  if (request.op === 'bind') return { id, outcome: await bindUserSql(request.sql, request.inputs) };
  return { id, problem: await userSqlProblem(request.sql, request.kind) };
}

/** DuckDB's own messages can hold a value the SQL computed, of any size: the parent needs only their start. */
const FAILED_MESSAGE_MAX = 1000;

process.on('message', (message: unknown) => {
  if (!isSqlCheckRequest(message)) return;
  answerOf(message).then(answer, (err: unknown) => {
    const failed = err instanceof Error ? err.message : String(err);
    answer({ id: message.id, failed: failed.slice(0, FAILED_MESSAGE_MAX) });
  });
});
process.on('disconnect', () => process.exit(0));
