// Cycle detection (Tarjan's strongly connected components) and execution levels (Kahn's
// algorithm). Both iterative, so a 10,000-node chain cannot overflow the stack, and O(V + E).
import type { DagGraph } from './dag-graph.js';

/**
 * One cycle per strongly connected component of more than one vertex, as vertex lists starting
 * at the cycle's earliest vertex in DAG order, closed by repeating it: [a, b, c, a].
 * Self-loops are left to the caller (they are reported on their own).
 */
export function findCycles(graph: DagGraph): number[][] {
  const { offsets, targets } = graph;
  const n = graph.ids.length;
  const order = new Int32Array(n).fill(-1); // discovery index
  const low = new Int32Array(n);
  const onStack = new Uint8Array(n);
  const component = new Int32Array(n).fill(-1);
  const sccStack: number[] = [];
  // The explicit DFS stack: a vertex and the next of its out-edges to follow.
  const callVertex = new Int32Array(n);
  const callEdge = new Int32Array(n);
  const cycles: number[][] = [];
  let counter = 0;
  let components = 0;

  for (let root = 0; root < n; root++) {
    if (order[root] !== -1) continue;
    let top = 0;
    const enter = (v: number): void => {
      order[v] = low[v] = counter++;
      sccStack.push(v);
      onStack[v] = 1;
      callVertex[top] = v;
      callEdge[top] = offsets[v]!;
      top++;
    };
    enter(root);
    while (top > 0) {
      const v = callVertex[top - 1]!;
      const e = callEdge[top - 1]!;
      if (e < offsets[v + 1]!) {
        callEdge[top - 1] = e + 1;
        const w = targets[e]!;
        if (order[w] === -1) enter(w);
        else if (onStack[w] === 1 && order[w]! < low[v]!) low[v] = order[w]!;
        continue;
      }
      top--;
      if (top > 0) {
        const parent = callVertex[top - 1]!;
        if (low[v]! < low[parent]!) low[parent] = low[v]!;
      }
      if (low[v] !== order[v]) continue;
      // v is the root of a component: pop it.
      const id = components++;
      let size = 0;
      let first = v;
      for (;;) {
        const w = sccStack.pop()!;
        onStack[w] = 0;
        component[w] = id;
        size++;
        if (w < first) first = w;
        if (w === v) break;
      }
      if (size > 1) cycles.push(cycleWithin(graph, component, first));
    }
  }
  return cycles;
}

/**
 * A cycle inside the component of `start`: every vertex of a strongly connected component of
 * two or more vertices has an out-edge to another one of it, so following the first such edge
 * must come back to a vertex already walked. Each vertex is walked at most once.
 */
function cycleWithin(graph: DagGraph, component: Int32Array, start: number): number[] {
  const { offsets, targets } = graph;
  const own = component[start]!;
  const walk: number[] = [];
  const position = new Map<number, number>();
  let v = start;
  for (;;) {
    position.set(v, walk.length);
    walk.push(v);
    let next = -1;
    for (let e = offsets[v]!; e < offsets[v + 1]!; e++) {
      const w = targets[e]!;
      if (w !== v && component[w] === own) {
        next = w;
        break;
      }
    }
    if (next === -1) throw new Error('cycleWithin: vertex without an out-edge in its component');
    const seen = position.get(next);
    if (seen !== undefined) {
      const cycle = walk.slice(seen);
      // Start at the earliest vertex, so the same cycle always reads the same way.
      let at = 0;
      for (let i = 1; i < cycle.length; i++) if (cycle[i]! < cycle[at]!) at = i;
      const rotated = [...cycle.slice(at), ...cycle.slice(0, at)];
      rotated.push(rotated[0]!);
      return rotated;
    }
    v = next;
  }
}

/**
 * Kahn's topological levels: level 0 holds the vertices without inputs, each later level the
 * vertices whose inputs all sit in earlier levels; vertices within a level in DAG order.
 * Vertices on a cycle (or a self-loop), and everything downstream of one, are left out.
 */
export function executionLevels(graph: DagGraph): number[][] {
  const { offsets, targets } = graph;
  const n = graph.ids.length;
  const inputs = new Int32Array(n);
  for (let e = 0; e < targets.length; e++) inputs[targets[e]!]!++;
  const level = new Int32Array(n).fill(-1);
  let current: number[] = [];
  for (let v = 0; v < n; v++) {
    if (inputs[v] === 0) {
      level[v] = 0;
      current.push(v);
    }
  }
  let depth = 0;
  while (current.length > 0) {
    const next: number[] = [];
    for (const v of current) {
      for (let e = offsets[v]!; e < offsets[v + 1]!; e++) {
        const w = targets[e]!;
        if (--inputs[w]! === 0) {
          level[w] = depth + 1;
          next.push(w);
        }
      }
    }
    current = next;
    depth++;
  }
  // Bucket by level walking vertices in DAG order: sorted levels without a sort.
  const levels: number[][] = Array.from({ length: depth }, () => []);
  for (let v = 0; v < n; v++) {
    const l = level[v]!;
    if (l >= 0) levels[l]!.push(v);
  }
  return levels;
}
