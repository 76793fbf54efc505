import { buildDagGraph } from './dag-graph.js';
import { executionLevels, findCycles } from './graph-order.js';
import type { Dag } from './dag.model.js';

/** A DAG of bare nodes from `a>b` edge strings; the graph code reads only ids and edges. */
function graphOf(nodeIds: string[], edges: string[]) {
  const dag: Dag = {
    nodes: nodeIds.map((id) => ({ id, type: 'transform', config: {} })),
    edges: edges.map((e) => {
      const [from, to] = e.split('>') as [string, string];
      return { from, to };
    }),
  };
  const graph = buildDagGraph(dag);
  const named = (vs: number[]) => vs.map((v) => graph.ids[v]);
  return { cycles: () => findCycles(graph).map(named), levels: () => executionLevels(graph).map(named) };
}

describe('findCycles', () => {
  it('finds none in a DAG', () => {
    expect(graphOf(['a', 'b', 'c'], ['a>b', 'b>c', 'a>c']).cycles()).toEqual([]);
  });

  it('ignores self-loops (reported separately)', () => {
    expect(graphOf(['a'], ['a>a']).cycles()).toEqual([]);
  });

  it('reads a cycle from its earliest node', () => {
    expect(graphOf(['x', 'c', 'b', 'a'], ['a>b', 'b>c', 'c>a', 'x>a']).cycles()).toEqual([['c', 'a', 'b', 'c']]);
  });

  it('gives a real cycle inside a component with several', () => {
    const { cycles } = graphOf(['a', 'b', 'c', 'd'], ['a>b', 'b>c', 'c>b', 'c>d', 'd>a']);
    const [cycle] = cycles();
    expect(cycles()).toHaveLength(1);
    expect(cycle).toEqual(['b', 'c', 'b']);
  });

  it('handles a 10,000-node cycle iteratively', () => {
    const ids = Array.from({ length: 10_000 }, (_, i) => `n${i}`);
    const edges = ids.map((id, i) => `${id}>${ids[(i + 1) % ids.length]}`);
    const [cycle] = graphOf(ids, edges).cycles();
    expect(cycle).toHaveLength(10_001);
    expect(cycle![0]).toBe('n0');
    expect(cycle![10_000]).toBe('n0');
  });
});

describe('executionLevels', () => {
  it('levels a diamond', () => {
    expect(graphOf(['a', 'b', 'c', 'd'], ['a>b', 'a>c', 'b>d', 'c>d']).levels()).toEqual([['a'], ['b', 'c'], ['d']]);
  });

  it('keeps DAG order within a level, whatever the edge order', () => {
    expect(graphOf(['r', 'z', 'y', 'x'], ['r>x', 'r>y', 'r>z']).levels()).toEqual([['r'], ['z', 'y', 'x']]);
  });

  it('lists only the acyclic part, without what hangs below a cycle', () => {
    expect(graphOf(['s', 'a', 'b', 'after', 'free'], ['s>a', 'a>b', 'b>a', 'b>after', 's>free']).levels()).toEqual([
      ['s'],
      ['free'],
    ]);
  });

  it('counts duplicate edges consistently', () => {
    expect(graphOf(['a', 'b'], ['a>b', 'a>b']).levels()).toEqual([['a'], ['b']]);
  });
});
