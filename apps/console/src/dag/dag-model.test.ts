import type { Dag, PipelineValidation, RunNode } from '@conduit/sdk';
import { describe, expect, it } from 'vitest';
import { buildGraph, dagIssues, levelsOf, levelsOfEdges } from './dag-model.js';

const dag = {
  nodes: [
    { id: 'a', type: 'source', config: {} },
    { id: 'b', type: 'source', config: {} },
    { id: 'join', type: 'sql', config: {} },
    { id: 'pick', type: 'decision', config: {} },
    { id: 'out', type: 'sink', config: {} },
  ],
  edges: [
    { from: 'a', to: 'join' },
    { from: 'b', to: 'join' },
    { from: 'join', to: 'pick' },
    { from: 'pick', to: 'out', when: 'load' },
  ],
} as unknown as Dag;

const validation = (over: Partial<PipelineValidation>): PipelineValidation => ({
  valid: true,
  errors: [],
  warnings: [],
  execution_order: [['a', 'b'], ['join'], ['pick'], ['out']],
  validated_at: '2026-11-25T10:00:00.000Z',
  ...over,
});

describe('buildGraph', () => {
  it('gives each node its execution level and lays levels out left to right', () => {
    const { nodes } = buildGraph(dag, validation({}));
    const byId = new Map(nodes.map((n) => [n.id, n]));
    expect(Object.fromEntries(levelsOf(validation({})))).toEqual({ a: 1, b: 1, join: 2, pick: 3, out: 4 });
    expect(byId.get('a')!.level).toBe(1);
    expect(byId.get('a')!.x).toBe(byId.get('b')!.x);
    expect(byId.get('join')!.x).toBeGreaterThan(byId.get('a')!.x);
    expect(byId.get('out')!.x).toBeGreaterThan(byId.get('pick')!.x);
  });

  it('puts validation issues on the nodes and edges they name, the rest on the DAG', () => {
    const { nodes, edges } = buildGraph(
      dag,
      validation({
        valid: false,
        execution_order: [],
        errors: [
          { code: 'missing_connector', message: 'connector con_x does not exist', node_id: 'a' },
          { code: 'bad_branch', message: 'no choice "load"', edge: { from: 'pick', to: 'out' } },
          { code: 'cycle', message: 'cycle join -> pick -> join', cycle: ['join', 'pick'] },
          { code: 'empty', message: 'the DAG has no sink' },
        ],
      }),
    );
    expect(nodes.find((n) => n.id === 'a')!.issues).toEqual(['connector con_x does not exist']);
    expect(nodes.find((n) => n.id === 'pick')!.issues).toEqual(['cycle join -> pick -> join']);
    expect(nodes.find((n) => n.id === 'b')!.issues).toEqual([]);
    expect(nodes.every((n) => n.level === undefined)).toBe(true);
    expect(edges.find((e) => e.from === 'pick')!).toMatchObject({ label: 'load', issues: ['no choice "load"'] });
    expect(dagIssues(validation({ errors: [{ code: 'empty', message: 'the DAG has no sink' }] }))).toEqual([
      'the DAG has no sink',
    ]);
  });

  it('colours nodes by their state in a run and carries the failed node error', () => {
    const runNodes = [
      { id: 'a', status: 'succeeded', error: null },
      { id: 'join', status: 'failed', error: { message: 'relation "x" does not exist' } },
    ] as unknown as RunNode[];
    const { nodes } = buildGraph(dag, validation({}), runNodes);
    expect(nodes.find((n) => n.id === 'a')).toMatchObject({ state: 'succeeded', error: undefined });
    expect(nodes.find((n) => n.id === 'join')).toMatchObject({ state: 'failed', error: 'relation "x" does not exist' });
    expect(nodes.find((n) => n.id === 'out')!.state).toBeUndefined();
  });
});

describe('levelsOfEdges', () => {
  it('gives the levels the validation would, from the edges alone (a run’s DAG has no validation)', () => {
    expect(Object.fromEntries(levelsOfEdges(dag))).toEqual(Object.fromEntries(levelsOf(validation({}))));
    const { nodes } = buildGraph(dag);
    expect(nodes.map((n) => [n.id, n.level])).toEqual([
      ['a', 1],
      ['b', 1],
      ['join', 2],
      ['pick', 3],
      ['out', 4],
    ]);
  });

  it('leaves the nodes of a cycle without a level', () => {
    const cyclic = {
      nodes: [
        { id: 'a', type: 'source', config: {} },
        { id: 'x', type: 'sql', config: {} },
        { id: 'y', type: 'sql', config: {} },
      ],
      edges: [
        { from: 'a', to: 'x' },
        { from: 'x', to: 'y' },
        { from: 'y', to: 'x' },
      ],
    } as unknown as Dag;
    expect(Object.fromEntries(levelsOfEdges(cyclic))).toEqual({ a: 1 });
  });
});
