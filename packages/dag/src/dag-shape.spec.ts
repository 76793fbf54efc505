import { checkDagShape, MAX_SHAPE_PROBLEMS } from './dag-shape.js';
import { apiExampleDag, chainDag } from './testing/dag-fixtures.js';

describe('checkDagShape', () => {
  it('accepts a well-formed DAG, even one that will not validate', () => {
    expect(checkDagShape(apiExampleDag())).toEqual([]);
    expect(checkDagShape({ nodes: [], edges: [] })).toEqual([]);
    expect(
      checkDagShape({ nodes: [{ id: 'a', type: 'nonsense', config: {} }], edges: [{ from: 'a', to: 'zz' }] }),
    ).toEqual([]);
  });

  it('refuses what is not an object with arrays nodes and edges', () => {
    for (const input of [null, [], 'dag', 42]) {
      expect(checkDagShape(input)).toEqual([expect.objectContaining({ path: 'dag', code: 'invalid_type' })]);
    }
    expect(checkDagShape({})).toEqual([
      { path: 'dag.nodes', code: 'required', message: 'is required' },
      { path: 'dag.edges', code: 'required', message: 'is required' },
    ]);
    expect(checkDagShape({ nodes: {}, edges: 'x' })).toEqual([
      expect.objectContaining({ path: 'dag.nodes', code: 'invalid_type' }),
      expect.objectContaining({ path: 'dag.edges', code: 'invalid_type' }),
    ]);
  });

  it('names every malformed node and edge field by its path', () => {
    const problems = checkDagShape({
      nodes: [
        { id: 'a', type: 'source', config: {} },
        { id: 1, config: [] },
        'node',
        { id: 'b', type: 'sink', config: null, label: 'typo' },
      ],
      edges: [{ from: 'a' }, { from: 'a', to: 'b', when: 3 }, { from: 'a', to: 'b', wehn: 'x' }],
      extra: true,
    });
    expect(problems.map((p) => [p.path, p.code])).toEqual([
      ['dag.nodes[1].id', 'invalid_type'],
      ['dag.nodes[1].type', 'required'],
      ['dag.nodes[1].config', 'invalid_type'],
      ['dag.nodes[2]', 'invalid_type'],
      ['dag.nodes[3].config', 'invalid_type'],
      ['dag.nodes[3].label', 'unknown_field'],
      ['dag.edges[0].to', 'required'],
      ['dag.edges[1].when', 'invalid_type'],
      ['dag.edges[2].wehn', 'unknown_field'],
      ['dag.extra', 'unknown_field'],
    ]);
  });

  it('refuses more than 10,000 nodes or 20,000 edges, without walking them', () => {
    const big = chainDag(10_001);
    expect(checkDagShape(big)).toEqual([expect.objectContaining({ path: 'dag.nodes', code: 'too_long' })]);
    expect(checkDagShape(chainDag(10_000))).toEqual([]);
    const edges = Array.from({ length: 20_001 }, () => ({ from: 'a', to: 'b' }));
    expect(checkDagShape({ nodes: [], edges })).toEqual([
      expect.objectContaining({ path: 'dag.edges', code: 'too_long' }),
    ]);
  });

  it('stops at MAX_SHAPE_PROBLEMS', () => {
    const nodes = Array.from({ length: 1000 }, () => ({}));
    expect(checkDagShape({ nodes, edges: [] })).toHaveLength(MAX_SHAPE_PROBLEMS);
  });
});
