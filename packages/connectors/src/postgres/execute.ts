/** Runs one statement (DDL, a refresh, a procedure call) and answers the rows it affected. */
import type pg from 'pg';
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
    // Several statements in one string answer one result each.
    const result = (await client.query(sql)) as pg.QueryResult | pg.QueryResult[];
    const results = Array.isArray(result) ? result : [result];
    return { rows_affected: results.reduce((sum, r) => sum + (r.rowCount ?? 0), 0) };
  } catch (err) {
    throw signal?.aborted ? signal.reason : toConnectorError(err, signal);
  } finally {
    await session.close();
  }
}
