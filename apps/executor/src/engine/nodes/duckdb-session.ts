/** A DuckDB connection for one node attempt, interrupted when the attempt's signal aborts and always given back. */
import type { DuckDBConnection } from '@duckdb/node-api';
import { readAll } from '@conduit/connectors';
import type { RunWorkspace } from '../../data/run-workspace.js';
import { StoppableWork, StrandedStatement } from '../../data/interrupts.js';
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
  // Interrupted until the work returns (one interrupt landing between two statements of the node, its checks, the
  // tenant's SQL, the counts, would be lost), and given up when an interrupt cannot stop it (data/interrupts.ts).
  const stoppable = new StoppableWork(connection, workspace.interrupts.graceMs);
  signal.addEventListener('abort', stoppable.stop, { once: true });
  // Aborted while the connection opened: the listener came too late to hear it.
  if (signal.aborted) stoppable.stop();
  let whole = false;
  let stranded = false;
  // Always a promise, even from work that throws before its first await.
  const running = (async () => work(connection))();
  // Should the run end before it (a node left out), the workspace waits for this, not for a guess, before closing.
  workspace.runs(connection, running);
  // What the work does after it was given up is nobody's: its rejection (the interrupt, at last) included.
  running.catch(() => undefined);
  try {
    const result = await Promise.race([running, stoppable.givenUp]);
    whole = !signal.aborted;
    return result;
  } catch (err) {
    stranded = err instanceof StrandedStatement;
    throw signal.aborted && !stranded ? signal.reason : err;
  } finally {
    signal.removeEventListener('abort', stoppable.stop);
    stoppable.end();
    // Only a connection whose work ended well (not aborted, so never interrupted) goes to the run's next node; one
    // whose statement still runs is never closed (that would block the event loop until it ends).
    if (stranded) workspace.strand(connection, running);
    else workspace.release(connection, keep && whole);
  }
}

export async function countRows(connection: DuckDBConnection, table: string): Promise<number> {
  const reader = await readAll(connection.run(`select count(*) from ${quoteIdent(table)}`));
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
