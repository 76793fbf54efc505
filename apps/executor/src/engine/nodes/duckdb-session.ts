/** A DuckDB connection for one node attempt, interrupted when the attempt's signal aborts and always released. */
import type { DuckDBConnection } from '@duckdb/node-api';
import type { RunWorkspace } from '../../data/run-workspace.js';
import { keepInterrupting } from '../../data/interrupts.js';
import { quoteIdent } from '../../data/sql-names.js';

export async function withDuckDB<T>(
  workspace: RunWorkspace,
  signal: AbortSignal,
  work: (connection: DuckDBConnection) => Promise<T>,
): Promise<T> {
  signal.throwIfAborted();
  const connection = await workspace.connect();
  // Repeated until the work returns: one interrupt landing between two statements of the node (its checks, the
  // tenant's SQL, the counts) would be lost.
  let stopInterrupting: (() => void) | undefined;
  const onAbort = () => (stopInterrupting = keepInterrupting(connection));
  signal.addEventListener('abort', onAbort, { once: true });
  try {
    return await work(connection);
  } catch (err) {
    throw signal.aborted ? signal.reason : err;
  } finally {
    signal.removeEventListener('abort', onAbort);
    stopInterrupting?.();
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
