/** Runs one statement (DDL, a refresh, a procedure call) and answers the rows it affected. */
import pg from 'pg';
import { openSession, type SessionOptions } from './pool.js';
import { toConnectorError } from './pg-errors.js';
import type { PostgresConfig } from './postgres.config.js';

export async function executeStatement(
  cfg: PostgresConfig,
  sql: string,
  opts: SessionOptions,
): Promise<{ rows_affected: number }> {
  const { signal } = opts;
  const session = await openSession(cfg, opts).catch((err: unknown) => {
    throw toConnectorError(err, signal);
  });
  const { client } = session;
  try {
    return { rows_affected: await rowsAffected(client, sql) };
  } catch (err) {
    throw signal?.aborted ? signal.reason : toConnectorError(err, signal);
  } finally {
    await session.close();
  }
}

/**
 * Runs `sql` (several statements in one string answer one result each) and sums the rows each affected or answered,
 * keeping no row: what a statement answers is the tenant's database's to size, and `client.query(sql)` would hold
 * every row in the executor's heap until the process died (a `select` of a hundred million rows). pg keeps no row
 * of a query that has a `row` listener and no callback (its Query.handleRowDescription).
 */
function rowsAffected(client: pg.ClientBase, sql: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const query = new pg.Query(sql);
    query.on('row', () => undefined);
    query.on('error', reject);
    query.on('end', (ended: pg.QueryResult | pg.QueryResult[]) => {
      const results = Array.isArray(ended) ? ended : [ended];
      resolve(results.reduce((sum, r) => sum + (r.rowCount ?? 0), 0));
    });
    void client.query(query);
  });
}
