/**
 * Runs platform SQL built around text a tenant's file declares (its column types) only as the one statement it was
 * built to be. DuckDB prints a type's names and labels quoted, but a type of a hand-made file could print otherwise,
 * and a run's DuckDB must never run a second statement of a tenant's making (`run` takes several at once).
 */
import type { DuckDBConnection, DuckDBMaterializedResult } from '@duckdb/node-api';
import { ConnectorError } from '../connector-error.js';

export async function runOneStatement(connection: DuckDBConnection, sql: string): Promise<DuckDBMaterializedResult> {
  const extracted = await connection.extractStatements(sql);
  if (extracted.count !== 1)
    throw new ConnectorError('the file declares a column type that cannot be used in a run', 'config_error');
  const prepared = await extracted.prepare(0);
  try {
    return await prepared.run();
  } finally {
    prepared.destroySync();
  }
}
