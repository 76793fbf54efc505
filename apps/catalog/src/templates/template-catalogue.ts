import type { Template } from '@conduit/contracts';

/** A template pipeline with the DAG it creates (the public listing shows only name and description). */
export interface TemplatePipelineDefinition {
  name: string;
  description: string;
  dag: {
    nodes: { id: string; type: string; config: Record<string, unknown> }[];
    edges: { from: string; to: string; when?: string }[];
  };
}

export interface TemplateDefinition {
  name: string;
  description: string;
  pipelines: TemplatePipelineDefinition[];
}

/**
 * Connector ids a user replaces after creating a project from a template. They name no connector, so the
 * pipelines are stored `invalid` (unknown_connector) until then, which api.md allows for drafts.
 */
export const PLACEHOLDER_CONNECTOR = {
  source: 'con_REPLACE_WITH_SOURCE_CONNECTOR',
  sink: 'con_REPLACE_WITH_SINK_CONNECTOR',
  llm: 'con_REPLACE_WITH_LLM_CONNECTOR',
} as const;

const TEMPLATES: readonly TemplateDefinition[] = [
  {
    name: 'blank',
    description: 'An empty project.',
    pipelines: [],
  },
  {
    name: 'postgres-to-postgres-etl',
    description: 'Copy a table from one PostgreSQL database to another, cleaning it on the way, and upsert by key.',
    pipelines: [
      {
        name: 'orders-etl',
        description: 'Extract orders, keep those with a positive amount, upsert them into the warehouse by id.',
        dag: {
          nodes: [
            { id: 'extract', type: 'source', config: { connector_id: PLACEHOLDER_CONNECTOR.source, table: 'orders' } },
            { id: 'clean', type: 'transform', config: { sql: 'select * from extract where amount > 0' } },
            {
              id: 'load',
              type: 'sink',
              config: { connector_id: PLACEHOLDER_CONNECTOR.sink, table: 'orders_clean', mode: 'upsert', key: ['id'] },
            },
          ],
          edges: [
            { from: 'extract', to: 'clean' },
            { from: 'clean', to: 'load' },
          ],
        },
      },
    ],
  },
  {
    name: 'support-ticket-routing',
    description: 'Read new support tickets, let an LLM judge how urgent they are, and page on-call or queue them.',
    pipelines: [
      {
        name: 'ticket-routing',
        description:
          'Every few minutes: an LLM decision reads the new tickets and routes the batch to on-call (urgent) or to the ' +
          'queue (routine). An unsure or failed answer pages on-call: a person looks rather than an outage waits.',
        dag: {
          nodes: [
            {
              id: 'tickets',
              type: 'source',
              config: {
                connector_id: PLACEHOLDER_CONNECTOR.source,
                query: "select id, subject, body, customer_tier from tickets where status = 'new'",
              },
            },
            {
              id: 'urgency',
              type: 'decision',
              config: {
                strategy: 'llm',
                connector_id: PLACEHOLDER_CONNECTOR.llm,
                prompt:
                  'You triage support tickets for {{params.product}}. There are {{row_count}} new tickets with the ' +
                  'columns {{columns}}; here are up to 20 of them, one JSON object a line:\n{{rows}}\n\n' +
                  'Answer "urgent" if any of them reports an outage, data loss, a security problem or a blocked ' +
                  'enterprise customer; otherwise "routine".',
                choices: ['urgent', 'routine'],
                default: 'urgent',
                min_confidence: 0.6,
                sample_rows: 20,
                timeout_seconds: 30,
              },
            },
            {
              id: 'to_oncall',
              type: 'sink',
              config: {
                connector_id: PLACEHOLDER_CONNECTOR.sink,
                table: 'oncall_tickets',
                mode: 'upsert',
                key: ['id'],
              },
            },
            {
              id: 'to_queue',
              type: 'sink',
              config: {
                connector_id: PLACEHOLDER_CONNECTOR.sink,
                table: 'queued_tickets',
                mode: 'upsert',
                key: ['id'],
              },
            },
          ],
          edges: [
            { from: 'tickets', to: 'urgency' },
            { from: 'urgency', to: 'to_oncall', when: 'urgent' },
            { from: 'urgency', to: 'to_queue', when: 'routine' },
          ],
        },
      },
    ],
  },
];

/** The public catalogue (`GET /v2/templates`): names, descriptions and the pipelines each creates. */
export function listTemplates(): Template[] {
  return TEMPLATES.map((t) => ({
    name: t.name,
    description: t.description,
    pipelines: t.pipelines.map((p) => ({ name: p.name, description: p.description })),
  }));
}

/** The full definition of a template, DAGs included; undefined for an unknown name. */
export function findTemplate(name: string): TemplateDefinition | undefined {
  const found = TEMPLATES.find((t) => t.name === name);
  // A copy, so no caller can alter the catalogue.
  return found && structuredClone(found);
}
