/** A DuckDB connection for one node attempt, interrupted when the attempt's signal aborts and always released. */
import type { DuckDBConnection } from '@duckdb/node-api';
import type { RunWorkspace } from '../../data/run-workspace.js';
import { quoteIdent } from '../../data/sql-names.js';

/** How often a cancelled node's connection is interrupted again until its work returns. */
const REINTERRUPT_MS = 25;

export async function withDuckDB<T>(
  workspace: RunWorkspace,
  signal: AbortSignal,
  work: (connection: DuckDBConnection) => Promise<T>,
): Promise<T> {
  signal.throwIfAborted();
  const connection = await workspace.connect();
  let reinterrupt: NodeJS.Timeout | undefined;
  const onAbort = () => {
    connection.interrupt();
    // DuckDB clears an interrupt when the next statement starts, so one landing between two statements of the node
    // (its checks, the tenant's SQL, the counts) would be lost: repeat it until the work settles.
    reinterrupt = setInterval(() => connection.interrupt(), REINTERRUPT_MS);
  };
  signal.addEventListener('abort', onAbort, { once: true });
  try {
    return await work(connection);
  } catch (err) {
    throw signal.aborted ? signal.reason : err;
  } finally {
    signal.removeEventListener('abort', onAbort);
    clearInterval(reinterrupt);
    workspace.release(connection);
  }
}

export async function countRows(connection: DuckDBConnection, table: string): Promise<number> {
  const reader = await connection.runAndReadAll(`select count(*) from ${quoteIdent(table)}`);
  return Number(reader.getRows()[0]?.[0] ?? 0);
}

export async function countInputs(connection: DuckDBConnection, inputs: readonly string[]): Promise<number> {
  let total = 0;
  for (const input of inputs) total += await countRows(connection, input);
  return total;
}
