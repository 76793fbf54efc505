// The DAG of a valid pipeline, node type by node type, as the API documents it (api.md "Pipeline", "Node types").
// Requests are not parsed with these: a create or update refuses only a DAG of the wrong shape (@conduit/dag's
// checkDagShape) and stores anything else as a draft with its validation, so that a draft can be saved and fixed.
// They describe what @conduit/dag's validation accepts (e2e/openapi.e2e.ts saves a DAG these accept and finds it valid).
import { z } from 'zod';

const nodeId = z.string().min(1).max(200).meta({
  description: 'Unique within the DAG; a transform reads its input as a table of this name.',
  example: 'orders',
});
const connectorId = z
  .string()
  .min(1)
  .max(64)
  .meta({ description: 'A connector of the same tenant.', example: 'con_01JD3V6Y9ZQ8W1S3X5C7E9G2HK' });
const sqlText = (description: string) => z.string().min(1).meta({ description });

/** Fields any node may set besides its type's own. */
const commonConfig = {
  timeout_seconds: z.number().gt(0).max(86_400).optional().meta({ description: 'Fails the node when it runs longer.' }),
  retries: z.number().int().min(0).max(10).optional().meta({ description: 'Attempts after a failure.' }),
};

export const sourceConfigSchema = z
  .looseObject({
    ...commonConfig,
    connector_id: connectorId,
    query: sqlText('A query the connector runs (SQL databases); `table` or `query`, not both.').optional(),
    table: z.string().min(1).optional().meta({ description: 'A table to read whole.' }),
    columns: z
      .record(
        z.string().min(1),
        z
          .string()
          .min(1)
          .max(200)
          .regex(/^[A-Za-z0-9 (),[\]]+$/),
      )
      .optional()
      .meta({
        description: "DuckDB types for file, S3 and HTTP sources' columns, instead of the sniffed ones.",
        example: { amount: 'DECIMAL(12,2)' },
      }),
  })
  .meta({
    id: 'SourceConfig',
    description:
      "Reads rows from a connector: `query` or `table`, or the connector's own fields (e.g. `path` and `format` for files and objects, `topic` for queues).",
  });

export const transformConfigSchema = z
  .looseObject({
    ...commonConfig,
    sql: sqlText('A DuckDB SELECT over the inputs, each a table named after its node id.'),
  })
  .meta({ id: 'TransformConfig', description: 'SQL over its inputs.' });

export const SINK_WRITE_MODES = ['append', 'overwrite', 'upsert'] as const;

export const sinkConfigSchema = z
  .looseObject({
    ...commonConfig,
    connector_id: connectorId,
    table: z
      .string()
      .min(1)
      .optional()
      .meta({ description: "The target table (or the connector's own target fields, e.g. `path`)." }),
    mode: z.enum(SINK_WRITE_MODES).optional().meta({ default: 'append' }),
    key: z.array(z.string().min(1)).min(1).optional().meta({ description: 'Key columns; required for `upsert`.' }),
    create: z.boolean().optional().meta({ description: 'Creates the target table when it does not exist.' }),
    schema_evolution: z
      .enum(['none', 'add_columns'])
      .optional()
      .meta({ description: '`add_columns` adds columns the target lacks; `none` fails the sink.' }),
  })
  .meta({ id: 'SinkConfig', description: 'Writes its input to a connector.' });

export const sqlConfigSchema = z
  .looseObject({
    ...commonConfig,
    connector_id: connectorId,
    sql: sqlText('A statement run on the connector (DDL, a refresh, a procedure).'),
  })
  .meta({ id: 'SqlConfig', description: 'Runs a statement on a connector.' });

const decisionCommon = {
  ...commonConfig,
  choices: z
    .array(z.string().min(1))
    .min(1)
    .meta({ description: 'What the node may choose; edges out of it carry `when` with one of them.' }),
  default: z.string().min(1).meta({
    description: 'One of `choices`: taken when no rule holds, or on a failed, late or unusable model answer.',
  }),
};

export const rulesDecisionConfigSchema = z
  .looseObject({
    ...decisionCommon,
    strategy: z.literal('rules'),
    rules: z
      .array(
        z.strictObject({
          choice: z.string().min(1),
          sql: sqlText('A query over the inputs that returns one boolean.'),
        }),
      )
      .min(1)
      .meta({ description: 'The first rule whose query returns true gives the choice.' }),
  })
  .meta({ id: 'RulesDecisionConfig' });

export const llmDecisionConfigSchema = z
  .looseObject({
    ...decisionCommon,
    strategy: z.literal('llm'),
    connector_id: connectorId.meta({ description: 'An `openai` connector (an OpenAI-compatible chat endpoint).' }),
    prompt: z.string().min(1).meta({ description: 'A template over the input rows and run parameters.' }),
    min_confidence: z.number().min(0).max(1).optional(),
    sample_rows: z.number().int().min(1).max(1000).optional().meta({ description: 'Input rows the prompt may show.' }),
  })
  .meta({ id: 'LlmDecisionConfig' });

export const decisionConfigSchema = z
  .discriminatedUnion('strategy', [rulesDecisionConfigSchema, llmDecisionConfigSchema])
  .meta({
    id: 'DecisionConfig',
    description:
      'Chooses one of `choices`; branches not chosen are `skipped`, as are the nodes that depend only on them.',
  });

/** The same two settings may stand on the node itself (api.md: every node may also set them); not in both places. */
const node = <T extends string, C extends z.ZodType>(type: T, config: C, id: string) =>
  z.strictObject({ id: nodeId, type: z.literal(type), config, ...commonConfig }).meta({ id });

export const dagNodeSchema = z
  .discriminatedUnion('type', [
    node('source', sourceConfigSchema, 'SourceNode'),
    node('transform', transformConfigSchema, 'TransformNode'),
    node('sink', sinkConfigSchema, 'SinkNode'),
    node('sql', sqlConfigSchema, 'SqlNode'),
    node('decision', decisionConfigSchema, 'DecisionNode'),
  ])
  .meta({ id: 'DagNode', description: 'A node; `type` decides what its `config` holds.' });

export const dagEdgeSchema = z
  .strictObject({
    from: nodeId.meta({ description: 'The upstream node.' }),
    to: nodeId.meta({ description: 'The downstream node.' }),
    when: z
      .string()
      .min(1)
      .optional()
      .meta({ description: 'Only on edges out of a decision node: the choice that runs this branch.' }),
  })
  .meta({ id: 'DagEdge' });

export const dagSchema = z
  .strictObject({
    nodes: z.array(dagNodeSchema).min(1).max(500),
    edges: z.array(dagEdgeSchema).max(2000),
  })
  .meta({
    id: 'Dag',
    description:
      "The pipeline's graph. A create or update refuses (422) only a DAG of the wrong shape (nodes need a string `id`, " +
      'a string `type` and an object `config`; edges a `from` and a `to`); anything else that breaks these rules is ' +
      'stored with `status: invalid` and its `validation`, so a draft can be saved and fixed. A pipeline read back holds ' +
      'its DAG as saved.',
  });
export type DocumentedDag = z.infer<typeof dagSchema>;

/**
 * The most nodes and edges a create or update takes: @conduit/dag's DAG_SHAPE_LIMITS (its spec checks they agree);
 * validation holds a valid DAG to 500 and 2,000.
 */
export const STORED_DAG_LIMITS = { maxNodes: 10_000, maxEdges: 20_000 } as const;

/**
 * A DAG as a pipeline or a run answers it: as saved, in the shape a create or update accepts (@conduit/dag's
 * checkDagShape), whatever its validation said, so that an answer holding a draft still matches its schema. A valid
 * pipeline's DAG also matches `Dag`.
 */
export const storedDagSchema = z
  .strictObject({
    nodes: z
      .array(
        z
          .strictObject({
            id: z.string(),
            type: z.string(),
            config: z.looseObject({}),
            timeout_seconds: z.unknown().optional(),
            retries: z.unknown().optional(),
          })
          .meta({ id: 'StoredDagNode' }),
      )
      .max(STORED_DAG_LIMITS.maxNodes),
    edges: z
      .array(
        z.strictObject({ from: z.string(), to: z.string(), when: z.string().optional() }).meta({ id: 'StoredDagEdge' }),
      )
      .max(STORED_DAG_LIMITS.maxEdges),
  })
  .meta({
    id: 'StoredDag',
    description:
      'A DAG as saved, a draft included: the shape a create or update accepts. What each node type holds, and what ' +
      'makes a DAG valid, is `Dag`.',
  });
