import { validateDag } from './validate-dag.js';
import type { Dag } from './dag.model.js';
import { apiExampleDag, chainDag, codes, ctx, sink, source, transform } from './testing/dag-fixtures.js';

describe('validateDag: the api.md example', () => {
  it('is valid, runs level by level, and warns about the choice no edge carries', () => {
    const result = validateDag(apiExampleDag(), ctx);
    expect(result.errors).toEqual([]);
    expect(result.valid).toBe(true);
    expect(result.execution_order).toEqual([['orders'], ['clean'], ['route'], ['to_dw']]);
    expect(result.warnings).toEqual([
      expect.objectContaining({ code: 'unreachable_choice', node_id: 'route', path: 'nodes[2].config.choices' }),
    ]);
    expect(result.warnings[0]!.message).toContain('"small"');
  });
});

describe('validateDag: graph rules', () => {
  it('empty_dag', () => {
    const result = validateDag({ nodes: [], edges: [] }, ctx);
    expect(result.valid).toBe(false);
    expect(codes(result.errors)).toEqual(['empty_dag']);
    expect(result.execution_order).toEqual([]);
  });

  it('too_many_nodes and too_many_edges', () => {
    const dag = chainDag(501);
    for (let i = 0; i < 1501; i++) dag.edges.push({ from: 'n0', to: 'n1' });
    const result = validateDag(dag, ctx);
    expect(codes(result.errors)).toEqual(['too_many_nodes', 'too_many_edges']);
    expect(validateDag(chainDag(500), ctx).errors).toEqual([]);
  });

  it('duplicate_node_id on the later node, with its path', () => {
    const dag: Dag = { nodes: [source('a'), transform('b'), transform('a')], edges: [{ from: 'a', to: 'b' }] };
    const errors = validateDag(dag, ctx).errors;
    expect(errors).toEqual([expect.objectContaining({ code: 'duplicate_node_id', node_id: 'a', path: 'nodes[2].id' })]);
  });

  it('duplicate_node_id for ids that differ only in case (their tables would be one)', () => {
    const dag: Dag = { nodes: [source('Orders'), transform('orders')], edges: [{ from: 'Orders', to: 'orders' }] };
    const errors = validateDag(dag, ctx).errors;
    expect(errors).toEqual([
      expect.objectContaining({ code: 'duplicate_node_id', node_id: 'orders', path: 'nodes[1].id' }),
    ]);
    expect(errors[0]!.message).toContain('"Orders"');
  });

  it('invalid_node_id for an empty id', () => {
    const dag: Dag = { nodes: [source(' ', { table: 'orders' })], edges: [] };
    expect(validateDag(dag, ctx).errors).toEqual([
      expect.objectContaining({ code: 'invalid_node_id', path: 'nodes[0].id' }),
    ]);
  });

  it('invalid_node_id for an id over 200 characters, which no run message could carry; 200 is fine', () => {
    const long = 'n'.repeat(201);
    const dag: Dag = {
      nodes: [source(long, { table: 'orders' }), source('m'.repeat(200), { table: 'orders' })],
      edges: [],
    };
    const errors = validateDag(dag, ctx).errors;
    expect(errors).toEqual([expect.objectContaining({ code: 'invalid_node_id', path: 'nodes[0].id' })]);
    expect(errors[0]!.message).toBe('node 0: id must be at most 200 characters (got 201)');
  });

  it('unknown_node for each end of an edge that names no node', () => {
    const dag: Dag = {
      nodes: [source('a')],
      edges: [
        { from: 'a', to: 'ghost' },
        { from: 'nope', to: 'a' },
      ],
    };
    expect(validateDag(dag, ctx).errors).toEqual([
      expect.objectContaining({ code: 'unknown_node', edge: { from: 'a', to: 'ghost' }, path: 'edges[0].to' }),
      expect.objectContaining({ code: 'unknown_node', edge: { from: 'nope', to: 'a' }, path: 'edges[1].from' }),
    ]);
  });

  it('self_loop, and the node is left out of execution_order', () => {
    const dag: Dag = {
      nodes: [source('a'), transform('b')],
      edges: [
        { from: 'a', to: 'b' },
        { from: 'b', to: 'b' },
      ],
    };
    const result = validateDag(dag, ctx);
    expect(result.errors).toEqual([
      expect.objectContaining({ code: 'self_loop', node_id: 'b', edge: { from: 'b', to: 'b' }, path: 'edges[1]' }),
    ]);
    expect(result.execution_order).toEqual([['a']]);
  });

  it('cycle with its path in the message and in `cycle`', () => {
    const dag: Dag = {
      nodes: [source('s'), transform('a'), transform('b'), transform('c'), sink('out')],
      edges: [
        { from: 's', to: 'a' },
        { from: 'a', to: 'b' },
        { from: 'b', to: 'c' },
        { from: 'c', to: 'a' },
        { from: 'c', to: 'out' },
      ],
    };
    const result = validateDag(dag, ctx);
    expect(result.errors).toEqual([
      { code: 'cycle', message: 'cycle: a -> b -> c -> a', node_id: 'a', cycle: ['a', 'b', 'c', 'a'] },
    ]);
    expect(result.execution_order).toEqual([['s']]);
  });

  it('one cycle per strongly connected component', () => {
    const dag: Dag = {
      nodes: [source('s'), transform('a'), transform('b'), transform('c'), transform('d')],
      edges: [
        { from: 's', to: 'a' },
        { from: 'a', to: 'b' },
        { from: 'b', to: 'a' },
        { from: 's', to: 'c' },
        { from: 'd', to: 'c' },
        { from: 'c', to: 'd' },
      ],
    };
    const cycles = validateDag(dag, ctx)
      .errors.filter((e) => e.code === 'cycle')
      .map((e) => e.cycle);
    expect(cycles).toEqual(
      expect.arrayContaining([
        ['a', 'b', 'a'],
        ['c', 'd', 'c'],
      ]),
    );
    expect(cycles).toHaveLength(2);
  });

  it('unknown_node_type, and its config is not judged', () => {
    const dag: Dag = { nodes: [{ id: 'x', type: 'spreadsheet', config: {} }], edges: [] };
    expect(validateDag(dag, ctx).errors).toEqual([
      expect.objectContaining({ code: 'unknown_node_type', node_id: 'x', path: 'nodes[0].type' }),
    ]);
  });

  it('when_without_decision', () => {
    const dag: Dag = { nodes: [source('a'), transform('b')], edges: [{ from: 'a', to: 'b', when: 'yes' }] };
    expect(validateDag(dag, ctx).errors).toEqual([
      expect.objectContaining({ code: 'when_without_decision', edge: { from: 'a', to: 'b' }, path: 'edges[0].when' }),
    ]);
  });

  it('unknown_choice', () => {
    const dag = apiExampleDag();
    dag.edges.push({ from: 'route', to: 'small_sink', when: 'medium' });
    dag.nodes.push(sink('small_sink'));
    const errors = validateDag(dag, ctx).errors;
    expect(errors).toEqual([
      expect.objectContaining({
        code: 'unknown_choice',
        edge: { from: 'route', to: 'small_sink' },
        path: 'edges[3].when',
      }),
    ]);
    expect(errors[0]!.message).toContain('"medium"');
  });

  it('missing_input for a transform, a sink and a decision; a source needs none', () => {
    const dag: Dag = {
      nodes: [
        source('s'),
        transform('t'),
        sink('k'),
        {
          id: 'd',
          type: 'decision',
          config: { strategy: 'rules', choices: ['x'], default: 'x', rules: [{ choice: 'x', sql: 'select true' }] },
        },
      ],
      edges: [{ from: 'd', to: 'k', when: 'x' }],
    };
    const errors = validateDag(dag, ctx).errors;
    expect(errors).toEqual([
      expect.objectContaining({ code: 'missing_input', node_id: 't', path: 'nodes[1]' }),
      expect.objectContaining({ code: 'missing_input', node_id: 'd', path: 'nodes[3]' }),
    ]);
  });

  it('missing_input for a node whose only inputs leave no table (a sql node, a sink); an ordering edge beside one is fine', () => {
    const sql = (id: string) => ({ id, type: 'sql', config: { connector_id: 'con_pg', sql: 'select 1' } });
    const dag: Dag = {
      nodes: [source('s'), sql('q'), transform('t'), sink('k'), sink('k2'), transform('ok')],
      edges: [
        { from: 'q', to: 't' },
        { from: 'q', to: 'k' },
        { from: 's', to: 'k2' },
        { from: 'k2', to: 'ok' },
        { from: 's', to: 'ok' },
        { from: 'q', to: 'ok' },
      ],
    };
    const errors = validateDag(dag, ctx).errors;
    expect(errors).toEqual([
      expect.objectContaining({
        code: 'missing_input',
        node_id: 't',
        message: expect.stringContaining('leaves no table'),
      }),
      expect.objectContaining({ code: 'missing_input', node_id: 'k', message: expect.stringContaining('only orders') }),
    ]);
  });

  it('edge_without_when is a warning, not an error', () => {
    const dag = apiExampleDag();
    dag.nodes.push(sink('audit'));
    dag.edges.push({ from: 'route', to: 'audit' });
    const result = validateDag(dag, ctx);
    expect(result.valid).toBe(true);
    expect(result.warnings).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ code: 'edge_without_when', edge: { from: 'route', to: 'audit' }, path: 'edges[3]' }),
      ]),
    );
  });
});

describe('validateDag: all problems in one pass', () => {
  it('reports every error at once', () => {
    const dag: Dag = {
      nodes: [
        source('s', { connector_id: 'con_missing' }),
        transform('t', ''),
        { id: 't', type: 'sink', config: { connector_id: 'con_llm', table: 'x', mode: 'merge' } },
        { id: 'odd', type: 'lake', config: {} },
        sink('lonely'),
      ],
      edges: [
        { from: 's', to: 't' },
        { from: 't', to: 't' },
        { from: 's', to: 'nowhere' },
        { from: 's', to: 't', when: 'yes' },
      ],
    };
    const result = validateDag(dag, ctx);
    expect(result.valid).toBe(false);
    expect(codes(result.errors).sort()).toEqual(
      [
        'unknown_connector',
        'invalid_node_config', // t: sql empty
        'duplicate_node_id',
        'invalid_node_config', // second t: mode
        'connector_unfit',
        'unknown_node_type',
        'self_loop',
        'unknown_node',
        'when_without_decision',
        'missing_input', // lonely
      ].sort(),
    );
  });
});

describe('validateDag: execution_order', () => {
  it('a diamond runs its two middle nodes together', () => {
    const dag: Dag = {
      nodes: [
        source('top'),
        transform('right'),
        transform('left'),
        { id: 'bottom', type: 'transform', config: { sql: 'select 1' } },
      ],
      edges: [
        { from: 'top', to: 'left' },
        { from: 'top', to: 'right' },
        { from: 'left', to: 'bottom' },
        { from: 'right', to: 'bottom' },
      ],
    };
    const result = validateDag(dag, ctx);
    expect(result.errors).toEqual([]);
    // Within a level, nodes keep their order in dag.nodes.
    expect(result.execution_order).toEqual([['top'], ['right', 'left'], ['bottom']]);
  });

  it('places a node after the longest path to it', () => {
    const dag: Dag = {
      nodes: [source('a'), source('b'), transform('c'), transform('d')],
      edges: [
        { from: 'a', to: 'c' },
        { from: 'c', to: 'd' },
        { from: 'b', to: 'd' },
      ],
    };
    expect(validateDag(dag, ctx).execution_order).toEqual([['a', 'b'], ['c'], ['d']]);
  });
});

describe('validateDag: scale', () => {
  it('a 10,000-node chain: no stack overflow, too_many_nodes, all levels', () => {
    const dag = chainDag(10_000);
    dag.edges.push({ from: 'n9999', to: 'n0' }); // one long cycle through every node
    const result = validateDag(dag, ctx);
    expect(codes(result.errors)).toEqual(['too_many_nodes', 'too_many_edges', 'cycle']);
    expect(result.errors[2]!.cycle).toHaveLength(10_001);
    expect(result.execution_order).toEqual([]);

    const acyclic = validateDag(chainDag(10_000), ctx);
    expect(codes(acyclic.errors)).toEqual(['too_many_nodes', 'too_many_edges']);
    expect(acyclic.execution_order).toHaveLength(10_000);
    expect(acyclic.execution_order[9_999]).toEqual(['n9999']);
  });
});
