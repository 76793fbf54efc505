// Shared test data (not built into dist): a connector catalogue and DAGs the specs start from.
import type { ConnectorInfo, Dag, DagNode, ValidationContext, ValidationIssue } from '../dag.model.js';

export const CONNECTORS: Record<string, ConnectorInfo> = {
  con_pg: { type: 'postgres', roles: ['source', 'sink', 'sql'], nodeFields: { source: ['params'], sink: [] } },
  con_s3: { type: 's3', roles: ['source', 'sink'] },
  con_llm: { type: 'openai', roles: ['llm'] },
};

export const ctx: ValidationContext = { connector: (id) => CONNECTORS[id] };

/** The example DAG of api.md "Pipeline", with connector ids of CONNECTORS. */
export function apiExampleDag(): Dag {
  return {
    nodes: [
      { id: 'orders', type: 'source', config: { connector_id: 'con_pg', query: 'select * from orders' } },
      { id: 'clean', type: 'transform', config: { sql: 'select * from orders where amount > 0' } },
      {
        id: 'route',
        type: 'decision',
        config: {
          strategy: 'llm',
          connector_id: 'con_llm',
          prompt: '...',
          choices: ['big', 'small'],
          default: 'small',
        },
      },
      {
        id: 'to_dw',
        type: 'sink',
        config: { connector_id: 'con_pg', table: 'orders_clean', mode: 'upsert', key: ['id'] },
      },
    ],
    edges: [
      { from: 'orders', to: 'clean' },
      { from: 'clean', to: 'route' },
      { from: 'route', to: 'to_dw', when: 'big' },
    ],
  };
}

export const source = (id: string, config: Record<string, unknown> = {}): DagNode => ({
  id,
  type: 'source',
  config: { connector_id: 'con_pg', table: id, ...config },
});
export const transform = (id: string, sql = 'select 1'): DagNode => ({ id, type: 'transform', config: { sql } });
export const sink = (id: string, config: Record<string, unknown> = {}): DagNode => ({
  id,
  type: 'sink',
  config: { connector_id: 'con_pg', table: id, ...config },
});

/** A source feeding `n - 1` transforms in a line: s -> t1 -> t2 ... */
export function chainDag(n: number): Dag {
  const nodes: DagNode[] = [source('n0')];
  const edges = [];
  for (let i = 1; i < n; i++) {
    nodes.push(transform(`n${i}`));
    edges.push({ from: `n${i - 1}`, to: `n${i}` });
  }
  return { nodes, edges };
}

export const codes = (issues: ValidationIssue[]): string[] => issues.map((i) => i.code);
