/** Runs one statement (DDL, a refresh, a procedure call) and answers the rows it affected. */
import type pg from 'pg';
import { cancelOnAbort, closeClient, connectClient } from './connection.js';
import { toConnectorError } from './pg-errors.js';
import type { PostgresConfig } from './postgres.config.js';

export async function executeStatement(
  cfg: PostgresConfig,
  sql: string,
  signal?: AbortSignal,
): Promise<{ rows_affected: number }> {
  const client = await connectClient(cfg, signal).catch((err: unknown) => {
    throw toConnectorError(err, signal);
  });
  const stopCancelling = cancelOnAbort(client, cfg, signal);
  try {
    // Several statements in one string answer one result each.
    const result = (await client.query(sql)) as pg.QueryResult | pg.QueryResult[];
    const results = Array.isArray(result) ? result : [result];
    return { rows_affected: results.reduce((sum, r) => sum + (r.rowCount ?? 0), 0) };
  } catch (err) {
    throw signal?.aborted ? signal.reason : toConnectorError(err, signal);
  } finally {
    stopCancelling();
    await closeClient(client);
  }
}
