/**
 * Which of a node's inputs are tables. A source, transform or decision leaves a table (or view) of the run's DuckDB
 * named after it; a sql node or a sink leaves none, so an edge from one only orders the nodes (LEAVES_TABLE, from
 * @conduit/dag, which validation uses too). Read as a table, such a node's id would name whatever DuckDB finds by
 * that name outside the run's own tables: a sql node called `pg_settings` feeding a sink exported DuckDB's settings.
 */
import { LEAVES_TABLE } from '@conduit/dag';
import type { RunPlan } from './run-plan.js';

/** Of the inputs `ids` (ids of nodes of `plan`), those whose node leaves a table of the run. */
export function tableInputs(plan: RunPlan, ids: readonly string[]): string[] {
  return ids.filter((id) => LEAVES_TABLE.has(plan.byId.get(id)?.node.type ?? ''));
}
