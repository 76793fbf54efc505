import { repeatableNodeIds } from './repeatable-nodes.js';

describe('repeatableNodeIds', () => {
  it('names the transforms a transform, decision or sink reads, and no other node', () => {
    const node = (id: string, type: string, config: Record<string, unknown> = {}) => ({ id, type, config });
    const dag = {
      nodes: [
        node('src', 'source'),
        node('clean', 'transform'),
        node('enrich', 'transform'),
        node('route', 'decision', { strategy: 'rules' }),
        node('judge', 'decision', { strategy: 'llm' }),
        node('for_sink', 'transform'),
        node('out', 'sink'),
        node('leaf', 'transform'),
        node('before_sql', 'transform'),
        node('stmt', 'sql'),
      ],
      edges: [
        { from: 'src', to: 'clean' },
        { from: 'clean', to: 'enrich' },
        { from: 'enrich', to: 'route' },
        { from: 'route', to: 'judge', when: 'x' },
        { from: 'judge', to: 'for_sink', when: 'y' },
        { from: 'for_sink', to: 'out' },
        { from: 'clean', to: 'leaf' },
        { from: 'clean', to: 'before_sql' },
        { from: 'before_sql', to: 'stmt' },
      ],
    };
    expect([...repeatableNodeIds(dag)].sort()).toEqual(['clean', 'enrich', 'for_sink']);
  });

  it('names none of a malformed DAG (the engine reports it)', () => {
    expect(repeatableNodeIds({ nodes: 'no' }).size).toBe(0);
  });
});
