/** Runs one statement (DDL, a refresh, DML) on the DuckDB file and answers the rows it changed. */
import { withDatabase } from './database.js';
import type { DuckdbConfig } from './duckdb.config.js';

export async function executeDuckdb(cfg: DuckdbConfig, sql: string, signal?: AbortSignal): Promise<{ rows_affected: number }> {
  return withDatabase(cfg, 'write', signal, async (connection) => {
    const result = await connection.run(sql);
    return { rows_affected: result.rowsChanged };
  });
}
