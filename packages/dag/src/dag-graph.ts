// A compact index of a DAG for the graph algorithms: vertices in DAG order, out-edges in
// compressed (CSR) arrays. Built in O(nodes + edges).
import type { Dag } from './dag.model.js';

export interface DagGraph {
  /** Vertex -> node id. A vertex is the first node with its id; later duplicates are left out. */
  readonly ids: readonly string[];
  /** Vertex -> index of its node in dag.nodes. */
  readonly nodeIndex: readonly number[];
  /** Node id -> vertex. */
  readonly vertexOf: ReadonlyMap<string, number>;
  /** Out-neighbours of vertex v are targets[offsets[v] .. offsets[v + 1]), in edge order. */
  readonly offsets: Int32Array;
  readonly targets: Int32Array;
}

/** Builds the graph of a DAG; edges naming an unknown node are left out (reported by validation). */
export function buildDagGraph(dag: Dag): DagGraph {
  const ids: string[] = [];
  const nodeIndex: number[] = [];
  const vertexOf = new Map<string, number>();
  dag.nodes.forEach((node, i) => {
    if (vertexOf.has(node.id)) return;
    vertexOf.set(node.id, ids.length);
    ids.push(node.id);
    nodeIndex.push(i);
  });

  const n = ids.length;
  const from: number[] = [];
  const to: number[] = [];
  for (const edge of dag.edges) {
    const u = vertexOf.get(edge.from);
    const v = vertexOf.get(edge.to);
    if (u === undefined || v === undefined) continue;
    from.push(u);
    to.push(v);
  }

  // Counting sort of the edges by source keeps each vertex's out-edges in edge order.
  const offsets = new Int32Array(n + 1);
  for (const u of from) offsets[u + 1]!++;
  for (let v = 0; v < n; v++) offsets[v + 1]! += offsets[v]!;
  const targets = new Int32Array(from.length);
  const fill = offsets.slice(0, n);
  for (let e = 0; e < from.length; e++) targets[fill[from[e]!]!++] = to[e]!;

  return { ids, nodeIndex, vertexOf, offsets, targets };
}
