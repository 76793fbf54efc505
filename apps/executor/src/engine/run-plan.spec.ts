import { planRun } from './run-plan.js';

const node = (id: string) => ({ id, type: 'transform', config: { sql: 'select 1' } });

describe('planRun', () => {
  it('links each node to its edges', () => {
    const plan = planRun({ nodes: [node('a'), node('b')], edges: [{ from: 'a', to: 'b' }] });
    expect(plan.byId.get('b')!.inputs).toEqual([{ from: 'a', to: 'b' }]);
    expect(plan.byId.get('a')!.outputs).toHaveLength(1);
  });

  it("reads a node's own timeout_seconds and retries as its config's", () => {
    const plan = planRun({ nodes: [{ ...node('a'), timeout_seconds: 3, retries: 2 }], edges: [] });
    expect(plan.byId.get('a')!.node.config).toEqual({ sql: 'select 1', timeout_seconds: 3, retries: 2 });
  });

  it('refuses malformed DAGs, unknown nodes, duplicates and cycles', () => {
    expect(() => planRun({ nodes: 'x' })).toThrow(/malformed/);
    expect(() => planRun({ nodes: [node('a')], edges: [{ from: 'a', to: 'z' }] })).toThrow(/unknown node/);
    expect(() => planRun({ nodes: [node('a'), node('a')], edges: [] })).toThrow(/two nodes/);
    expect(() =>
      planRun({
        nodes: [node('a'), node('b')],
        edges: [
          { from: 'a', to: 'b' },
          { from: 'b', to: 'a' },
        ],
      }),
    ).toThrow(/cycle/);
  });
});
