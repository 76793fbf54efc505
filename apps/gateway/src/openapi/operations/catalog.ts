// Projects, pipelines and the read-only catalogues.
import {
  pipelineCreateSchema,
  pipelineListQuerySchema,
  pipelinePageSchema,
  pipelineSchema,
  pipelineValidateSchema,
  pipelineValidationSchema,
  projectCreateSchema,
  projectListQuerySchema,
  projectPageSchema,
  projectSchema,
  projectUpdateSchema,
  templateListSchema,
  connectorTypeListSchema,
  dagSchema,
} from '@conduit/contracts';
import type { OperationSpec } from '../operation-spec.js';
import { exampleDag, examplePipeline, examplePipelineCreate, exampleProject } from '../examples.js';
import { idParams, one, page } from './common.js';

const projectId = idParams({ project_id: 'project' });
const pipelineId = idParams({ pipeline_id: 'pipeline' });

/** The documented body: the runtime schema takes any object as `dag` and leaves its shape to @conduit/dag. */
const pipelineBody = pipelineCreateSchema.extend({ dag: dagSchema });
const validateBody = pipelineValidateSchema.extend({
  dag: dagSchema.optional().meta({ description: 'A draft to validate instead of the saved DAG; nothing is stored.' }),
});

export const catalogOperations: OperationSpec[] = [
  {
    operationId: 'listProjects',
    method: 'get',
    path: '/v2/projects',
    tag: 'Projects',
    status: 200,
    summary: 'List Projects',
    description: "The tenant's projects, newest first.",
    query: projectListQuerySchema,
    response: {
      schema: projectPageSchema,
      description: 'A page of projects.',
      examples: one('One page', page([exampleProject])),
    },
  },
  {
    operationId: 'createProject',
    method: 'post',
    path: '/v2/projects',
    tag: 'Projects',
    status: 201,
    headers: ['Location', 'ETag'],
    summary: 'Create Project',
    description:
      'Creates a project; with `template`, also the pipelines of that template (GET /v2/templates). An unknown template is a 422.',
    body: {
      schema: projectCreateSchema,
      required: true,
      examples: {
        example: {
          summary: 'An empty project',
          value: {
            name: 'Sales analytics',
            description: 'Orders from the shop database into the warehouse, every night.',
          },
        },
        fromTemplate: {
          summary: 'From a template',
          value: { name: 'ETL sandbox', template: 'postgres-to-postgres-etl' },
        },
      },
    },
    response: { schema: projectSchema, description: 'The project made.', examples: one('The project', exampleProject) },
    errors: ['name_taken', 'unknown_template'],
  },
  {
    operationId: 'getProject',
    method: 'get',
    path: '/v2/projects/{project_id}',
    tag: 'Projects',
    status: 200,
    headers: ['ETag'],
    summary: 'Get Project',
    description: 'One project.',
    params: projectId,
    response: { schema: projectSchema, description: 'The project.', examples: one('The project', exampleProject) },
  },
  {
    operationId: 'updateProject',
    method: 'put',
    path: '/v2/projects/{project_id}',
    tag: 'Projects',
    status: 200,
    headers: ['ETag'],
    summary: 'Update Project',
    description: 'Replaces name and description; the template cannot change. Honours If-Match.',
    params: projectId,
    body: {
      schema: projectUpdateSchema,
      required: true,
      examples: one('New name', { name: 'Sales analytics (EU)', description: 'EU orders only.' }),
    },
    response: {
      schema: projectSchema,
      description: 'The project as updated.',
      examples: one('The project', { ...exampleProject, name: 'Sales analytics (EU)', description: 'EU orders only.' }),
    },
    errors: ['name_taken', 'precondition_failed'],
  },
  {
    operationId: 'deleteProject',
    method: 'delete',
    path: '/v2/projects/{project_id}',
    tag: 'Projects',
    status: 204,
    summary: 'Delete Project',
    description: '409 `project_not_empty` while pipelines or connectors belong to it.',
    params: projectId,
    errors: ['project_not_empty', 'precondition_failed'],
  },
  {
    operationId: 'listPipelines',
    method: 'get',
    path: '/v2/pipelines',
    tag: 'Pipelines',
    status: 200,
    summary: 'List Pipelines',
    description: "The tenant's pipelines, newest first; `project_id` keeps one project's.",
    query: pipelineListQuerySchema,
    response: {
      schema: pipelinePageSchema,
      description: 'A page of pipelines.',
      examples: one('One page', page([examplePipeline])),
    },
  },
  {
    operationId: 'createPipeline',
    method: 'post',
    path: '/v2/pipelines',
    tag: 'Pipelines',
    status: 201,
    headers: ['Location', 'ETag'],
    summary: 'Create Pipeline',
    description:
      'Stores the pipeline and validates its DAG. Only a DAG of the wrong shape is refused (422); every other problem is ' +
      'stored as `status: invalid` with the validation, so a draft can be saved and fixed.',
    body: { schema: pipelineBody, required: true, examples: one('Orders into the warehouse', examplePipelineCreate) },
    response: {
      schema: pipelineSchema,
      description: 'The pipeline, with its validation.',
      examples: one('The pipeline', examplePipeline),
    },
    errors: ['name_taken', 'unknown_project'],
  },
  {
    operationId: 'getPipeline',
    method: 'get',
    path: '/v2/pipelines/{pipeline_id}',
    tag: 'Pipelines',
    status: 200,
    headers: ['ETag'],
    summary: 'Get Pipeline',
    description: 'One pipeline with its DAG and last validation.',
    params: pipelineId,
    response: { schema: pipelineSchema, description: 'The pipeline.', examples: one('The pipeline', examplePipeline) },
  },
  {
    operationId: 'updatePipeline',
    method: 'put',
    path: '/v2/pipelines/{pipeline_id}',
    tag: 'Pipelines',
    status: 200,
    headers: ['ETag'],
    summary: 'Update Pipeline',
    description: 'Replaces name, description, dag and project_id; the version goes up by one. Honours If-Match.',
    params: pipelineId,
    body: { schema: pipelineBody, required: true, examples: one('A new DAG', examplePipelineCreate) },
    response: {
      schema: pipelineSchema,
      description: 'The pipeline as updated.',
      examples: one('Version 2', { ...examplePipeline, version: 2 }),
    },
    errors: ['name_taken', 'unknown_project', 'precondition_failed'],
  },
  {
    operationId: 'deletePipeline',
    method: 'delete',
    path: '/v2/pipelines/{pipeline_id}',
    tag: 'Pipelines',
    status: 204,
    summary: 'Delete Pipeline',
    description: '409 `pipeline_in_use` while a job uses it.',
    params: pipelineId,
    errors: ['pipeline_in_use', 'precondition_failed'],
  },
  {
    operationId: 'validatePipeline',
    method: 'post',
    path: '/v2/pipelines/{pipeline_id}/validate',
    tag: 'Pipelines',
    status: 200,
    summary: 'Validate Pipeline',
    description:
      'Validates the DAG, reporting every problem at once, and stores the result (without changing `version`). An invalid ' +
      'DAG is still a 200 with `valid: false`. With a body `{ dag }`, validates that draft by the same rules instead and ' +
      'stores nothing (the pipeline, its version and its stored validation stay as they are); a draft an update would ' +
      'refuse (wrong shape, SQL that could never run) is the same 422.',
    params: pipelineId,
    body: { schema: validateBody, required: false, examples: one('A draft', { dag: exampleDag }) },
    response: {
      schema: pipelineValidationSchema,
      description: 'The validation.',
      examples: {
        example: { summary: 'Valid', value: examplePipeline.validation },
        invalid: {
          summary: 'Invalid',
          value: {
            valid: false,
            errors: [
              {
                code: 'cycle',
                message: 'the DAG has a cycle: clean -> route -> clean',
                cycle: ['clean', 'route', 'clean'],
              },
              {
                code: 'unknown_connector',
                message: 'no connector con_01JD3V6Y9ZQ8W1S3X5C7E9G2HZ',
                node_id: 'to_dw',
                path: 'nodes[3].config.connector_id',
              },
            ],
            warnings: [],
            execution_order: [],
            validated_at: '2026-11-22T10:15:00.000Z',
          },
        },
      },
    },
  },
  {
    operationId: 'listTemplates',
    method: 'get',
    path: '/v2/templates',
    tag: 'Catalogues',
    status: 200,
    summary: 'List Templates',
    description: 'Templates a project can be created from, each with the pipelines it makes.',
    response: {
      schema: templateListSchema,
      description: 'Every template.',
      examples: one('Templates', {
        data: [
          {
            name: 'postgres-to-postgres-etl',
            description: 'Copy and clean a table between two PostgreSQL databases.',
            pipelines: [{ name: 'etl', description: 'Extract, clean, load.' }],
          },
        ],
      }),
    },
  },
  {
    operationId: 'listConnectorTypes',
    method: 'get',
    path: '/v2/connector-types',
    tag: 'Catalogues',
    status: 200,
    summary: 'List Connector Types',
    description:
      'Each type with its category, the node roles it serves, and the JSON Schema of its config (secret fields marked).',
    response: {
      schema: connectorTypeListSchema,
      description: 'Every connector type.',
      examples: one('Types', {
        data: [
          {
            type: 'postgres',
            category: 'database',
            description: 'PostgreSQL database: read tables or queries, write with COPY, run statements.',
            roles: ['source', 'sink', 'sql'],
            config_schema: {
              type: 'object',
              properties: { host: { type: 'string' }, password: { type: 'string', writeOnly: true, 'x-secret': true } },
              required: ['host', 'database', 'user'],
            },
            secret_fields: ['password'],
            location_fields: ['host', 'port'],
          },
        ],
      }),
    },
  },
];
