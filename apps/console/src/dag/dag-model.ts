// A pipeline's DAG as the graph draws it: positions from dagre (left to right), each node's execution level, the
// validation issues that concern it, and, on a run page, its state. Pure data, tested without a browser.
import { Graph, layout, type GraphLabel, type NodeLabel } from '@dagrejs/dagre';
import type { PipelineValidation, RunNode, StoredDag } from '@conduit/sdk';

type Issue = PipelineValidation['errors'][number];
/** A node's type as saved: a draft may hold one that is none of the node types. */
export type NodeType = StoredDag['nodes'][number]['type'];
export type NodeState = RunNode['status'];

export interface GraphNode {
  id: string;
  type: NodeType;
  /** 1-based execution level: nodes of one level run together once the levels before them are done. */
  level: number | undefined;
  issues: string[];
  state: NodeState | undefined;
  /** The node's error in a failed run. */
  error: string | undefined;
  x: number;
  y: number;
}

export interface GraphEdge {
  id: string;
  from: string;
  to: string;
  /** A decision branch's condition. */
  label: string | undefined;
  issues: string[];
}

export const NODE_WIDTH = 200;
export const NODE_HEIGHT = 96;

/** The level of each node from the validation's execution order; absent when the DAG is invalid (no order). */
export function levelsOf(validation: PipelineValidation | undefined): Map<string, number> {
  const levels = new Map<string, number>();
  validation?.execution_order.forEach((ids, index) => ids.forEach((id) => levels.set(id, index + 1)));
  return levels;
}

/**
 * The levels of a DAG without its validation (a run's, which validated when the run was triggered): a node runs one
 * level after the last of its inputs, as the executor orders them. A node on a cycle gets none.
 */
export function levelsOfEdges(dag: StoredDag): Map<string, number> {
  const inputs = new Map<string, string[]>(dag.nodes.map((n) => [n.id, []]));
  for (const edge of dag.edges) inputs.get(edge.to)?.push(edge.from);
  const levels = new Map<string, number>();
  let placed = true;
  while (placed) {
    placed = false;
    for (const [id, from] of inputs) {
      if (levels.has(id) || !from.every((f) => levels.has(f) || !inputs.has(f))) continue;
      levels.set(id, 1 + Math.max(0, ...from.map((f) => levels.get(f) ?? 0)));
      placed = true;
    }
  }
  return levels;
}

function issuesOfNode(issues: readonly Issue[], id: string): string[] {
  return issues.filter((i) => i.node_id === id || (i.cycle?.includes(id) ?? false)).map((i) => i.message);
}

function issuesOfEdge(issues: readonly Issue[], from: string, to: string): string[] {
  return issues.filter((i) => i.edge?.from === from && i.edge.to === to).map((i) => i.message);
}

export function buildGraph(
  dag: StoredDag,
  validation?: PipelineValidation,
  runNodes: readonly RunNode[] = [],
): { nodes: GraphNode[]; edges: GraphEdge[] } {
  const issues = validation?.errors ?? [];
  const levels = validation ? levelsOf(validation) : levelsOfEdges(dag);
  const runNodeOf = new Map(runNodes.map((n) => [n.id, n]));
  const g = new Graph<GraphLabel, NodeLabel>();
  g.setGraph({ rankdir: 'LR', nodesep: 32, ranksep: 72, marginx: 16, marginy: 16 });
  g.setDefaultEdgeLabel(() => ({}));
  const known = new Set(dag.nodes.map((n) => n.id));
  for (const node of dag.nodes) g.setNode(node.id, { width: NODE_WIDTH, height: NODE_HEIGHT });
  // An edge to an unknown node is a validation error, shown in the list; dagre cannot place it.
  for (const edge of dag.edges) if (known.has(edge.from) && known.has(edge.to)) g.setEdge(edge.from, edge.to);
  layout(g);
  const nodes = dag.nodes.map((node): GraphNode => {
    const placed: NodeLabel = g.node(node.id);
    const run = runNodeOf.get(node.id);
    return {
      id: node.id,
      type: node.type,
      level: levels.get(node.id),
      issues: issuesOfNode(issues, node.id),
      state: run?.status,
      error: run?.error?.message,
      x: (placed.x ?? 0) - NODE_WIDTH / 2,
      y: (placed.y ?? 0) - NODE_HEIGHT / 2,
    };
  });
  const edges = dag.edges.map((edge, index): GraphEdge => ({
    id: `${edge.from}->${edge.to}#${index}`,
    from: edge.from,
    to: edge.to,
    label: edge.when,
    issues: issuesOfEdge(issues, edge.from, edge.to),
  }));
  return { nodes, edges };
}

/** Issues that name neither a node nor an edge (the DAG as a whole). */
export function dagIssues(validation: PipelineValidation | undefined): string[] {
  return (validation?.errors ?? []).filter((i) => !i.node_id && !i.edge && !i.cycle).map((i) => i.message);
}
