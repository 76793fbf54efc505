/**
 * What fencing tests count (issue 16): the executor processes of a stack, which one runs a run, and a sink table whose
 * rows record which execution of a source wrote them, so a repeated node shows as a second execution, not only as a
 * run state.
 */
import type pg from 'pg';
import type { ServiceProcess, Stack } from '@conduit/testing';

/** The stack's executor processes still alive. */
export function liveExecutors(stack: Stack): ServiceProcess[] {
  return stack.processes.filter(
    (p) => p.name === 'executor' && p.child.exitCode === null && p.child.signalCode === null,
  );
}

/** The live executor whose log shows it started this run (its last execution, when several did). */
export function executorRunning(stack: Stack, runId: string): ServiceProcess | undefined {
  const started = (line: string) => line.includes(`"run_id":"${runId}"`) && line.includes('"msg":"run started"');
  return liveExecutors(stack).find((p) => p.output.join('').split('\n').some(started));
}

/** Kills a process with SIGKILL (no goodbye, no lock released) and waits for it to be gone. */
export async function killHard(p: ServiceProcess): Promise<void> {
  const exited = new Promise((r) => p.child.once('exit', r));
  process.kill(p.child.pid!, 'SIGKILL');
  await exited;
}

/**
 * A source query of `rows` rows that sleeps `sleepSeconds` in PostgreSQL first (time to kill its executor mid-node),
 * each row carrying a marker drawn once per execution of the query.
 */
export function markedRowsQuery(rows: number, sleepSeconds: number): string {
  return `select i as n, m.execution from generate_series(1, ${rows}) as i, (select md5(random()::text || clock_timestamp()::text) as execution, pg_sleep(${sleepSeconds})) as m`;
}

export const MARKED_ROWS_TABLE = '(n integer not null, execution text not null)';

/** A pipeline appending `markedRowsQuery(rows, sleepSeconds)` (node `rows`) to `table` (node `load`), on one connector. */
export function markedRowsDag(connectorId: string, table: string, rows: number, sleepSeconds: number) {
  return {
    nodes: [
      { id: 'rows', type: 'source', config: { connector_id: connectorId, query: markedRowsQuery(rows, sleepSeconds) } },
      { id: 'load', type: 'sink', config: { connector_id: connectorId, table, mode: 'append' } },
    ],
    edges: [{ from: 'rows', to: 'load' }],
  };
}

/** Rows of a sink table by the source execution that wrote them. */
export async function rowsByExecution(db: pg.Client, table: string): Promise<number[]> {
  const { rows } = await db.query<{ rows: number }>(`select count(*)::int as rows from ${table} group by execution`);
  return rows.map((r) => r.rows);
}
