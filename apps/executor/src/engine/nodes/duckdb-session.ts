/** A DuckDB connection for one node attempt, interrupted when the attempt's signal aborts and always given back. */
import type { DuckDBConnection } from '@duckdb/node-api';
import type { RunWorkspace } from '../../data/run-workspace.js';
import { keepInterrupting } from '../../data/interrupts.js';
import { quoteIdent } from '../../data/sql-names.js';

/**
 * Whether the tenant's SQL may call setseed(), which seeds its connection's random generator for every later statement
 * on it: such a node's connection is not kept for the run's next node, whose random() and uuid() must not follow a
 * seed it never set. Any mention counts, even in a comment or a string: the cost of a miss is one new connection.
 */
export const seedsRandom = (sql: string): boolean => /setseed/i.test(sql);

/** How a node uses its DuckDB connection. */
export interface DuckDBUse {
  /**
   * `platform`: only the platform's own statements run on it (loads, reads, counts, views built from node ids), never a
   * tenant's SQL, so the run's database needs no check of the instance's settings when the run ends (RunWorkspace
   * connect). The default, `tenant`, is the safe one.
   */
  sql?: 'tenant' | 'platform';
  /** False: the connection is closed after, even when the work ended well (see seedsRandom). */
  keep?: boolean;
}

/** A node that runs only the platform's own statements on its connection. */
export const PLATFORM_SQL: DuckDBUse = { sql: 'platform' };

/**
 * Runs `work` on a connection of the run's workspace; one that ended well goes to the run's next node, unless `keep`
 * is false.
 */
export async function withDuckDB<T>(
  workspace: RunWorkspace,
  signal: AbortSignal,
  work: (connection: DuckDBConnection) => Promise<T>,
  { sql = 'tenant', keep = true }: DuckDBUse = {},
): Promise<T> {
  signal.throwIfAborted();
  const connection = await workspace.connect(sql);
  // Repeated until the work returns: one interrupt landing between two statements of the node (its checks, the
  // tenant's SQL, the counts) would be lost.
  let stopInterrupting: (() => void) | undefined;
  const onAbort = () => (stopInterrupting = keepInterrupting(connection));
  signal.addEventListener('abort', onAbort, { once: true });
  let whole = false;
  try {
    const result = await work(connection);
    whole = !signal.aborted;
    return result;
  } catch (err) {
    throw signal.aborted ? signal.reason : err;
  } finally {
    signal.removeEventListener('abort', onAbort);
    stopInterrupting?.();
    // Only a connection whose work ended well (not aborted, so never interrupted) goes to the run's next node.
    workspace.release(connection, keep && whole);
  }
}

export async function countRows(connection: DuckDBConnection, table: string): Promise<number> {
  const reader = await connection.runAndReadAll(`select count(*) from ${quoteIdent(table)}`);
  return Number(reader.getRows()[0]?.[0] ?? 0);
}

/** The rows of the node's inputs: as DuckDB answered when this execution made them (setTableRows), else counted. */
export async function countInputs(
  workspace: RunWorkspace,
  connection: DuckDBConnection,
  inputs: readonly string[],
): Promise<number> {
  let total = 0;
  for (const input of inputs) total += workspace.knownTableRows(input) ?? (await countRows(connection, input));
  return total;
}
