import { describe, expect, it } from '@jest/globals';
import { checkDagShape, validateDag, type ConnectorInfo, type Dag } from '@conduit/dag';
import { findTemplate, listTemplates, PLACEHOLDER_CONNECTOR } from './template-catalogue.js';

const fitting: Record<string, ConnectorInfo> = {
  [PLACEHOLDER_CONNECTOR.source]: { type: 'postgres', roles: ['source', 'sink', 'sql'] },
  [PLACEHOLDER_CONNECTOR.sink]: { type: 'postgres', roles: ['source', 'sink', 'sql'] },
  [PLACEHOLDER_CONNECTOR.llm]: { type: 'openai', roles: ['llm'] },
};

describe('template catalogue', () => {
  it('lists names, descriptions and pipelines, without the DAGs', () => {
    const templates = listTemplates();
    expect(templates.map((t) => t.name)).toEqual(['blank', 'postgres-to-postgres-etl', 'support-ticket-routing']);
    for (const t of templates) {
      expect(t.description.length).toBeGreaterThan(0);
      for (const p of t.pipelines) expect(Object.keys(p).sort()).toEqual(['description', 'name']);
    }
    expect(templates.find((t) => t.name === 'blank')?.pipelines).toEqual([]);
  });

  it.each(listTemplates().map((t) => t.name))(
    '%s: every DAG has the right shape and validates once its connectors exist',
    (name) => {
      const template = findTemplate(name);
      expect(template).toBeDefined();
      for (const pipeline of template?.pipelines ?? []) {
        expect(checkDagShape(pipeline.dag)).toEqual([]);
        const result = validateDag(pipeline.dag, { connector: (id) => fitting[id] });
        expect(result.errors).toEqual([]);
        expect(result.valid).toBe(true);
      }
    },
  );

  it('routes support tickets by urgency with an LLM decision node that falls back to a person', () => {
    const dag = findTemplate('support-ticket-routing')?.pipelines[0]?.dag;
    const decision = dag?.nodes.find((n) => n.type === 'decision');
    expect(decision?.config).toMatchObject({
      strategy: 'llm',
      connector_id: PLACEHOLDER_CONNECTOR.llm,
      choices: ['urgent', 'routine'],
      default: 'urgent',
      min_confidence: 0.6,
    });
    expect(decision?.config['prompt']).toEqual(expect.stringContaining('{{rows}}'));
    expect(dag?.edges.filter((e) => e.from === decision?.id).map((e) => e.when)).toEqual(['urgent', 'routine']);
  });

  it('is stored invalid until the placeholders are replaced', () => {
    const dag = findTemplate('postgres-to-postgres-etl')?.pipelines[0]?.dag as Dag;
    const result = validateDag(dag, { connector: () => undefined });
    expect(result.valid).toBe(false);
    expect(new Set(result.errors.map((e) => e.code))).toEqual(new Set(['unknown_connector']));
  });

  it('answers copies, so a caller cannot alter the catalogue', () => {
    const first = findTemplate('postgres-to-postgres-etl');
    first?.pipelines.pop();
    expect(findTemplate('postgres-to-postgres-etl')?.pipelines).toHaveLength(1);
    expect(findTemplate('nope')).toBeUndefined();
  });
});
