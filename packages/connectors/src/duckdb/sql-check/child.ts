/**
 * The SQL-check child process (isolated-check.ts): checks each request with userSqlProblem and answers it. It runs
 * under a data-size limit set by its parent, so a statement whose binding folds a huge constant fails to allocate
 * instead of growing the process; one that binds for long is ended by the parent killing this process. It exits when
 * its parent goes.
 */
import { userSqlProblem } from '../user-sql.js';
import { isSqlCheckRequest, type SqlCheckAnswer } from './messages.js';

const answer = (message: SqlCheckAnswer): void => {
  process.send?.(message);
};

process.on('message', (message: unknown) => {
  if (!isSqlCheckRequest(message)) return;
  const { id, sql, kind } = message;
  userSqlProblem(sql, kind).then(
    (problem) => answer({ id, problem }),
    (err: unknown) => answer({ id, failed: err instanceof Error ? err.message : String(err) }),
  );
});
process.on('disconnect', () => process.exit(0));
