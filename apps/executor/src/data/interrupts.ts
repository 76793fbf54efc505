/**
 * Interrupting a DuckDB connection until its work is over. DuckDB clears a pending interrupt when the next statement
 * starts, so one interrupt landing between two statements is lost and the next one runs to its end: the interrupt is
 * repeated until the caller says the work has returned.
 */
import type { DuckDBConnection } from '@duckdb/node-api';

const REINTERRUPT_MS = 25;

/** Interrupts `connection` now and every 25 ms after; call the answer to stop. */
export function keepInterrupting(connection: DuckDBConnection): () => void {
  connection.interrupt();
  const timer = setInterval(() => connection.interrupt(), REINTERRUPT_MS);
  return () => clearInterval(timer);
}
