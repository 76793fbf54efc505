/** Runs one statement (DDL, a procedure call, an update) and answers the rows it affected. */
import type { ResultSetHeader } from 'mysql2';
import { closeMysql, connectMysql, killOnAbort } from './connection.js';
import { toMysqlConnectorError } from './mysql-errors.js';
import type { MysqlConfig } from './mysql.config.js';

export async function executeMysqlStatement(
  cfg: MysqlConfig,
  sql: string,
  signal?: AbortSignal,
): Promise<{ rows_affected: number }> {
  const raw = await connectMysql(cfg, signal).catch((err: unknown) => {
    throw toMysqlConnectorError(err, signal);
  });
  const stopKilling = killOnAbort(raw, cfg, signal);
  try {
    const [result] = await raw.promise().query(sql);
    // A statement that answers rows (SELECT, some CALLs) affects none.
    const header = Array.isArray(result) ? undefined : (result as ResultSetHeader);
    return { rows_affected: header?.affectedRows ?? 0 };
  } catch (err) {
    throw signal?.aborted ? signal.reason : toMysqlConnectorError(err, signal);
  } finally {
    stopKilling();
    await closeMysql(raw);
  }
}
