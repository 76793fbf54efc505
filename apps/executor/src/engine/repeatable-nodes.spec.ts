import { repeatableNodeIds } from './repeatable-nodes.js';

describe('repeatableNodeIds', () => {
  it('names the transforms and the rules decisions, and no node that reaches a connector or a model', () => {
    const dag = {
      nodes: [
        { id: 'src', type: 'source', config: {} },
        { id: 'clean', type: 'transform', config: {} },
        { id: 'by_rules', type: 'decision', config: { strategy: 'rules' } },
        { id: 'by_llm', type: 'decision', config: { strategy: 'llm' } },
        { id: 'stmt', type: 'sql', config: {} },
        { id: 'out', type: 'sink', config: {} },
      ],
      edges: [],
    };
    expect([...repeatableNodeIds(dag)]).toEqual(['clean', 'by_rules']);
  });

  it('names none of a malformed DAG (the engine reports it)', () => {
    expect(repeatableNodeIds({ nodes: 'no' }).size).toBe(0);
  });
});
