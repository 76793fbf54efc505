/**
 * What a takeover runs again (issue 16). A node recorded `succeeded` by an earlier execution of the run is not run
 * again: a sink that committed stays committed, a decision keeps its choice (so skipped branches stay skipped). A
 * succeeded node is re-run only to rebuild the DuckDB table that a node which must still run reads: that table went
 * with the dead executor. docs/reliability.md, "What a takeover re-runs".
 */
import type { RunNode } from '@conduit/contracts';
import type { RunPlan } from './run-plan.js';
import { LEAVES_TABLE, READS_INPUTS } from '@conduit/dag';

export interface ResumePlan {
  /** Succeeded before and not run again: their recorded state stands. */
  kept: ReadonlyMap<string, RunNode>;
  /** Succeeded before, run again only to rebuild the output a node that must still run reads. */
  rebuilt: ReadonlyMap<string, RunNode>;
  /** The recorded choice of every succeeded decision (kept or rebuilt). */
  choices: ReadonlyMap<string, string>;
  /** Attempts recorded per node: a node run again counts on from them. */
  attempts: ReadonlyMap<string, number>;
}

export function planResume(plan: RunPlan, recorded: readonly RunNode[]): ResumePlan {
  const succeeded = new Map(
    recorded.filter((n) => n.status === 'succeeded' && plan.byId.has(n.id)).map((n) => [n.id, n]),
  );
  const choices = new Map<string, string>();
  for (const [id, node] of succeeded) {
    const choice = node.output?.['choice'];
    if (plan.byId.get(id)!.node.type === 'decision' && typeof choice === 'string') choices.set(id, choice);
  }
  const rebuilt = new Map<string, RunNode>();
  // The inputs `id` will read when it runs: each succeeded one with a workspace output must be rebuilt, and so on up.
  const needInputsOf = (id: string): void => {
    if (!READS_INPUTS.has(plan.byId.get(id)!.node.type)) return;
    for (const edge of plan.byId.get(id)!.inputs) {
      const from = succeeded.get(edge.from);
      if (!from || rebuilt.has(from.id) || !LEAVES_TABLE.has(plan.byId.get(from.id)!.node.type)) continue;
      const choice = choices.get(from.id);
      // A branch its decision did not choose: the node there is skipped and reads nothing.
      if (edge.when !== undefined && choice !== undefined && edge.when !== choice) continue;
      rebuilt.set(from.id, from);
      needInputsOf(from.id);
    }
  };
  for (const { node } of plan.nodes) if (!succeeded.has(node.id)) needInputsOf(node.id);
  const kept = new Map([...succeeded].filter(([id]) => !rebuilt.has(id)));
  const attempts = new Map(recorded.filter((n) => plan.byId.has(n.id)).map((n) => [n.id, n.attempts]));
  return { kept, rebuilt, choices, attempts };
}
