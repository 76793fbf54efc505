// Answers of the catalog's operations: projects, templates, pipelines, connectors and connector types.
import { z } from 'zod';
import { storedDagSchema } from '../schemas/dag.js';
import { SECRET_MASK } from '../schemas/connector-secret-fields.js';
import { idOf, listOfSchema, pageOfSchema, timestamp } from './fields.js';

const description = z.string().nullable();

export const projectSchema = z
  .strictObject({
    id: idOf('project'),
    name: z.string(),
    description,
    template: z
      .string()
      .nullable()
      .meta({ description: 'The template it was created from (GET /v2/templates), if any.' }),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .meta({ id: 'Project' });

export const templateSchema = z
  .strictObject({
    name: z.string(),
    description: z.string(),
    pipelines: z.array(z.strictObject({ name: z.string(), description: z.string() }).meta({ id: 'TemplatePipeline' })),
  })
  .meta({ id: 'Template', description: 'A project template and the pipelines creating a project from it makes.' });

export const validationIssueSchema = z
  .strictObject({
    code: z
      .string()
      .meta({ description: 'e.g. `cycle`, `unknown_connector`, `invalid_node_config`, `unknown_column`.' }),
    message: z.string(),
    node_id: z.string().optional(),
    edge: z.strictObject({ from: z.string(), to: z.string() }).optional(),
    path: z.string().optional().meta({ description: 'Relative to the DAG, e.g. `nodes[2].config.mode`.' }),
    cycle: z
      .array(z.string())
      .optional()
      .meta({ description: 'For `cycle`: the node ids around it, the first repeated at the end.' }),
  })
  .meta({ id: 'ValidationIssue' });

export const pipelineValidationSchema = z
  .strictObject({
    valid: z.boolean(),
    errors: z.array(validationIssueSchema),
    warnings: z.array(validationIssueSchema),
    execution_order: z
      .array(z.array(z.string()))
      .meta({ description: 'Levels of node ids; the nodes of one level may run in parallel.' }),
    validated_at: timestamp,
  })
  .meta({ id: 'PipelineValidation' });

export const pipelineSchema = z
  .strictObject({
    id: idOf('pipeline'),
    project_id: idOf('project').nullable(),
    name: z.string(),
    description,
    dag: storedDagSchema,
    version: z.number().int().min(1).meta({ description: 'Starts at 1 and goes up by one on each update.' }),
    status: z.enum(['valid', 'invalid']).meta({ description: 'From the last validation.' }),
    validation: pipelineValidationSchema,
    created_at: timestamp,
    updated_at: timestamp,
  })
  .meta({ id: 'Pipeline' });

export const connectionCheckSchema = z
  .strictObject({
    name: z.string().meta({ example: 'connect' }),
    ok: z.boolean(),
    latency_ms: z.number().min(0),
    message: z.string(),
  })
  .meta({ id: 'ConnectionCheck' });

export const connectionTestResultSchema = z
  .strictObject({
    ok: z.boolean(),
    latency_ms: z.number().min(0),
    message: z.string(),
    error_class: z.enum(['config_error', 'transient_error']).nullable().meta({
      description: '`config_error`: fix the settings; `transient_error`: try again. Null when the test passed.',
    }),
    checks: z
      .array(connectionCheckSchema)
      .meta({ description: 'The steps that ran, in order; a failed step is the last.' }),
    details: z.record(z.string(), z.unknown()).meta({ description: 'What the server told, e.g. `server_version`.' }),
    tested_at: timestamp,
  })
  .meta({ id: 'ConnectionTestResult' });

export const connectorSchema = z
  .strictObject({
    id: idOf('connector'),
    project_id: idOf('project').nullable(),
    name: z.string(),
    type: z.string().meta({ description: 'One of GET /v2/connector-types.', example: 'postgres' }),
    config: z.record(z.string(), z.unknown()).meta({
      description: `The type's config (see its config schema), defaults applied; every secret field answered as \`${SECRET_MASK}\`.`,
    }),
    status: z
      .enum(['untested', 'ok', 'failed'])
      .meta({ description: 'From the last test; a config change makes it `untested`.' }),
    last_test: connectionTestResultSchema.nullable(),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .meta({ id: 'Connector' });

export const connectorTypeDescriptionSchema = z
  .strictObject({
    type: z.string(),
    category: z.string().meta({ example: 'database' }),
    description: z.string(),
    roles: z.array(z.string()).meta({ description: 'What a node may use it for: `source`, `sink`, `sql`, `llm`.' }),
    config_schema: z
      .record(z.string(), z.unknown())
      .meta({ description: 'JSON Schema (2020-12) of its config; secret fields carry `writeOnly` and `x-secret`.' }),
    secret_fields: z.array(z.string()),
    location_fields: z.array(z.string()).meta({
      description: 'Fields that say where and how (TLS) it connects: changing one requires sending every secret again.',
    }),
  })
  .meta({ id: 'ConnectorType' });

export const projectPageSchema = pageOfSchema(projectSchema, 'ProjectPage');
export const pipelinePageSchema = pageOfSchema(pipelineSchema, 'PipelinePage');
export const connectorPageSchema = pageOfSchema(connectorSchema, 'ConnectorPage');
export const templateListSchema = listOfSchema(templateSchema, 'TemplateList');
export const connectorTypeListSchema = listOfSchema(connectorTypeDescriptionSchema, 'ConnectorTypeList');
