/** Runs one statement (DDL, a procedure call, an update) and answers the rows it affected. */
import type { ResultSetHeader } from 'mysql2';
import { openMysqlSession, type MysqlSessionOptions, type SessionEnd } from './pool.js';
import { toMysqlConnectorError } from './mysql-errors.js';
import type { MysqlConfig } from './mysql.config.js';

export async function executeMysqlStatement(
  cfg: MysqlConfig,
  sql: string,
  opts: MysqlSessionOptions,
): Promise<{ rows_affected: number }> {
  const { signal } = opts;
  const session = await openMysqlSession(cfg, opts).catch((err: unknown) => {
    throw toMysqlConnectorError(err, signal);
  });
  let end: SessionEnd = 'failed';
  try {
    const [result] = await session.connection.promise().query(sql);
    end = 'finished';
    // A statement that answers rows (SELECT, some CALLs) affects none.
    const header = Array.isArray(result) ? undefined : (result as ResultSetHeader);
    return { rows_affected: header?.affectedRows ?? 0 };
  } catch (err) {
    throw signal?.aborted ? signal.reason : toMysqlConnectorError(err, signal);
  } finally {
    await session.close(end);
  }
}
