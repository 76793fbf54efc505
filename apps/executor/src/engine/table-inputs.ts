/**
 * Which of a node's inputs are tables. A source, transform or decision leaves a table (or view) of the run's DuckDB
 * named after it; a sql node or a sink leaves none, so an edge from one only orders the nodes. Read as a table, such a
 * node's id would name whatever DuckDB finds by that name outside the run's own tables: a sql node called `pg_settings`
 * feeding a sink exported DuckDB's settings (its folders among them).
 */
import type { RunPlan } from './run-plan.js';

/** Node types whose output is a table (or hand-off file) of the run's workspace; a sink's or a sql node's is not. */
export const WORKSPACE_OUTPUTS: ReadonlySet<string> = new Set(['source', 'transform', 'decision']);
/** Node types that read their inputs' tables; a sql node's inputs only order it, a source has none to read. */
export const READS_INPUTS: ReadonlySet<string> = new Set(['transform', 'decision', 'sink']);

/** Of the inputs `live` (ids of nodes of `plan`), those whose node leaves a table of the run. */
export function tableInputs(plan: RunPlan, live: readonly string[]): string[] {
  return live.filter((id) => WORKSPACE_OUTPUTS.has(plan.byId.get(id)?.node.type ?? ''));
}
