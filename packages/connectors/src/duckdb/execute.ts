/** Runs the sql node's one statement (DDL or DML, checked by user-sql.ts) on the DuckDB file and answers the rows it changed. */
import { ConnectorError } from '../connector-error.js';
import type { ExecuteOptions } from '../types.js';
import { withDatabase } from './database.js';
import type { DuckdbConfig } from './duckdb.config.js';
import { prepareUserSql } from './user-sql.js';

export async function executeDuckdb(
  cfg: DuckdbConfig,
  sql: string,
  opts: ExecuteOptions,
): Promise<{ rows_affected: number }> {
  const { tenantId, signal } = opts;
  return withDatabase(cfg, { mode: 'write', tenantId, limits: opts.duckdbLimits }, signal, async (connection) => {
    const prepared = await prepareUserSql(connection, sql, 'statement').catch((err: unknown) => {
      throw err instanceof ConnectorError ? new ConnectorError(`the statement ${err.message}`, 'config_error') : err;
    });
    try {
      const result = await prepared.run();
      return { rows_affected: result.rowsChanged };
    } finally {
      prepared.destroySync();
    }
  });
}
