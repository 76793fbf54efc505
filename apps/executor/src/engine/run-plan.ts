/** The DAG of a run command, checked for shape and cycles, with each node's incoming and outgoing edges. */
import { checkDagShape, nodeWithSettings, type Dag, type DagEdge, type DagNode } from '@conduit/dag';

export interface PlanNode {
  node: DagNode;
  /** Edges into this node, in DAG order. */
  inputs: DagEdge[];
  /** Edges out of this node, in DAG order. */
  outputs: DagEdge[];
}

export interface RunPlan {
  /** In DAG order. */
  nodes: PlanNode[];
  byId: ReadonlyMap<string, PlanNode>;
}

/** Throws an Error naming the problem when the DAG cannot run (the scheduler only sends validated DAGs). */
export function planRun(dagInput: Record<string, unknown>): RunPlan {
  const shape = checkDagShape(dagInput);
  if (shape.length > 0) {
    const first = shape[0]!;
    throw new Error(`the DAG is malformed: ${first.path} ${first.message}`);
  }
  const dag = dagInput as unknown as Dag;
  const byId = new Map<string, PlanNode>();
  for (const given of dag.nodes) {
    // Its timeout_seconds and retries read from its config, wherever the DAG sets them.
    const node = nodeWithSettings(given);
    if (byId.has(node.id)) throw new Error(`the DAG has two nodes with id "${node.id}"`);
    byId.set(node.id, { node, inputs: [], outputs: [] });
  }
  for (const edge of dag.edges) {
    const from = byId.get(edge.from);
    const to = byId.get(edge.to);
    if (!from || !to) throw new Error(`edge ${edge.from} -> ${edge.to} names an unknown node`);
    from.outputs.push(edge);
    to.inputs.push(edge);
  }
  assertAcyclic(byId);
  return { nodes: [...byId.values()], byId };
}

function assertAcyclic(byId: ReadonlyMap<string, PlanNode>): void {
  const remaining = new Map([...byId].map(([id, p]) => [id, p.inputs.length]));
  const ready = [...remaining].filter(([, n]) => n === 0).map(([id]) => id);
  let seen = 0;
  while (ready.length > 0) {
    const id = ready.pop()!;
    seen++;
    for (const edge of byId.get(id)!.outputs) {
      const left = remaining.get(edge.to)! - 1;
      remaining.set(edge.to, left);
      if (left === 0) ready.push(edge.to);
    }
  }
  if (seen !== byId.size) throw new Error('the DAG has a cycle');
}
