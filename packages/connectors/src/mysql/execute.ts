/** Runs one statement (DDL, a procedure call, an update) and answers the rows it affected. */
import type { Connection, ResultSetHeader } from 'mysql2';
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
    const rowsAffected = await affectedRows(session.connection, sql);
    end = 'finished';
    return { rows_affected: rowsAffected };
  } catch (err) {
    throw signal?.aborted ? signal.reason : toMysqlConnectorError(err, signal);
  } finally {
    await session.close(end);
  }
}

/**
 * Runs `sql` and sums the rows its results affected, keeping no row a statement answers (a SELECT, some CALLs affect
 * none): their size is the tenant's database's to choose, and a callback or promise query would hold them all in the
 * executor's heap. mysql2 emits a query's rows one by one, unkept, when it has no callback; an OK packet (the
 * statement affected rows) comes as a `result` announced by `fields` without columns.
 */
function affectedRows(connection: Connection, sql: string): Promise<number> {
  return new Promise((resolve, reject) => {
    let affected = 0;
    let header = false;
    // A query without a callback hears of a lost connection only through the connection's own error event.
    const lost = (err: Error) => reject(err);
    const settle = () => connection.removeListener('error', lost);
    connection.once('error', lost);
    const query = connection.query(sql);
    query.on('fields', (fields: unknown) => (header = fields === undefined));
    query.on('result', (result: unknown) => {
      if (header) affected += (result as ResultSetHeader).affectedRows;
    });
    query.on('error', (err: Error) => {
      settle();
      reject(err);
    });
    query.on('end', () => {
      settle();
      resolve(affected);
    });
  });
}
