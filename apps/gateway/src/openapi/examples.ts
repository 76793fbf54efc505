// Realistic examples: a warehouse load of orders, from request to run. Typed by the contracts' schemas, and a spec
// parses each with its schema, so an example cannot drift from what it shows.
import type { z } from 'zod';
import {
  type connectorSchema,
  type jobSchema,
  type pipelineSchema,
  type projectSchema,
  type runDagSchema,
  type runSchema,
  EXAMPLE_IDS,
  type jobCreateSchema,
  type pipelineCreateSchema,
  type DocumentedDag,
} from '@conduit/contracts';

const T0 = '2026-11-22T10:15:00.000Z';
const T1 = '2026-11-22T10:15:02.417Z';
const T2 = '2026-11-22T10:15:04.981Z';
const SOURCE_DB = 'con_01JD3V6Y9ZQ8W1S3X5C7E9G2HA';
const WAREHOUSE = 'con_01JD3V6Y9ZQ8W1S3X5C7E9G2HB';

export const exampleProject: z.output<typeof projectSchema> = {
  id: EXAMPLE_IDS.project,
  name: 'Sales analytics',
  description: 'Orders from the shop database into the warehouse, every night.',
  template: null,
  created_at: T0,
  updated_at: T0,
};

export const exampleDag: DocumentedDag = {
  nodes: [
    {
      id: 'orders',
      type: 'source',
      config: { connector_id: SOURCE_DB, query: 'select id, customer_id, amount, created_at from orders' },
    },
    { id: 'clean', type: 'transform', config: { sql: 'select * from orders where amount > 0' } },
    {
      id: 'route',
      type: 'decision',
      config: {
        strategy: 'rules',
        choices: ['load', 'skip'],
        default: 'skip',
        rules: [{ choice: 'load', sql: 'select count(*) > 0 from clean' }],
      },
    },
    {
      id: 'to_dw',
      type: 'sink',
      config: { connector_id: WAREHOUSE, table: 'orders_clean', mode: 'upsert', key: ['id'] },
    },
  ],
  edges: [
    { from: 'orders', to: 'clean' },
    { from: 'clean', to: 'route' },
    { from: 'route', to: 'to_dw', when: 'load' },
  ],
};

export const examplePipelineCreate: Omit<z.input<typeof pipelineCreateSchema>, 'dag'> & { dag: DocumentedDag } = {
  name: 'orders-to-warehouse',
  description: 'Clean orders and upsert them into the warehouse.',
  project_id: EXAMPLE_IDS.project,
  dag: exampleDag,
};

export const examplePipeline: z.output<typeof pipelineSchema> = {
  id: EXAMPLE_IDS.pipeline,
  project_id: EXAMPLE_IDS.project,
  name: 'orders-to-warehouse',
  description: 'Clean orders and upsert them into the warehouse.',
  dag: exampleDag,
  version: 1,
  status: 'valid',
  validation: {
    valid: true,
    errors: [],
    warnings: [],
    execution_order: [['orders'], ['clean'], ['route'], ['to_dw']],
    validated_at: T0,
  },
  created_at: T0,
  updated_at: T0,
};

export const exampleConnector: z.output<typeof connectorSchema> = {
  id: SOURCE_DB,
  project_id: EXAMPLE_IDS.project,
  name: 'shop-db',
  type: 'postgres',
  config: {
    host: 'shop-db.internal',
    port: 5432,
    database: 'shop',
    user: 'conduit_reader',
    password: '********',
    ssl: 'require',
    schema: 'public',
  },
  status: 'ok',
  last_test: {
    ok: true,
    latency_ms: 38,
    message: 'connected',
    error_class: null,
    checks: [
      { name: 'resolve', ok: true, latency_ms: 2, message: 'shop-db.internal -> 10.0.4.12' },
      { name: 'connect', ok: true, latency_ms: 11, message: 'TCP connection established' },
      { name: 'authenticate', ok: true, latency_ms: 19, message: 'logged in as conduit_reader' },
      { name: 'read_access', ok: true, latency_ms: 6, message: 'select 1 succeeded' },
    ],
    details: { server_version: '16.4' },
    tested_at: T1,
  },
  created_at: T0,
  updated_at: T1,
};

export const exampleJobCreate: z.input<typeof jobCreateSchema> = {
  name: 'nightly-orders',
  pipeline_id: EXAMPLE_IDS.pipeline,
  schedule: '0 2 * * *',
  timezone: 'Europe/Paris',
  concurrency_policy: 'forbid',
  parameters: { since_days: 1 },
};

export const exampleJob: z.output<typeof jobSchema> = {
  id: EXAMPLE_IDS.job,
  name: 'nightly-orders',
  description: null,
  pipeline_id: EXAMPLE_IDS.pipeline,
  schedule: '0 2 * * *',
  timezone: 'Europe/Paris',
  status: 'active',
  concurrency_policy: 'forbid',
  parameters: { since_days: 1 },
  next_run_at: '2026-11-23T01:00:00.000Z',
  upcoming_runs_at: [
    '2026-11-23T01:00:00.000Z',
    '2026-11-24T01:00:00.000Z',
    '2026-11-25T01:00:00.000Z',
    '2026-11-26T01:00:00.000Z',
    '2026-11-27T01:00:00.000Z',
  ],
  last_run: null,
  created_at: T0,
  updated_at: T0,
};

type RunNode = z.output<typeof runSchema>['nodes'][number];
const node = (id: string, type: string, rows: [number, number], extra: Partial<RunNode> = {}): RunNode => ({
  id,
  type,
  status: 'succeeded',
  started_at: T1,
  finished_at: T2,
  attempts: 1,
  rows_in: rows[0],
  rows_out: rows[1],
  output: null,
  error: null,
  columns: [
    { name: 'id', type: 'BIGINT', source_type: 'bigint' },
    { name: 'amount', type: 'DECIMAL(12,2)', source_type: 'numeric(12,2)' },
  ],
  ...extra,
});

export const exampleRunQueued: z.output<typeof runSchema> = {
  id: EXAMPLE_IDS.run,
  job_id: EXAMPLE_IDS.job,
  pipeline_id: EXAMPLE_IDS.pipeline,
  pipeline_version: 1,
  status: 'queued',
  trigger: 'manual',
  parameters: { since_days: 7 },
  attempt: 1,
  queued_at: T0,
  started_at: null,
  finished_at: null,
  duration_ms: null,
  error: null,
  nodes: ['orders', 'clean', 'route', 'to_dw'].map((id, i) =>
    node(id, ['source', 'transform', 'decision', 'sink'][i] ?? 'source', [0, 0], {
      status: 'pending',
      started_at: null,
      finished_at: null,
      attempts: 0,
      columns: null,
    }),
  ),
  stats: { rows_read: 0, rows_written: 0 },
};

export const exampleRunSucceeded: z.output<typeof runSchema> = {
  ...exampleRunQueued,
  status: 'succeeded',
  started_at: T1,
  finished_at: T2,
  duration_ms: 2564,
  nodes: [
    node('orders', 'source', [0, 1280]),
    node('clean', 'transform', [1280, 1274]),
    node('route', 'decision', [1274, 1274], { output: { choice: 'load', reason: 'rule 1 returned true' } }),
    node('to_dw', 'sink', [1274, 1274]),
  ],
  stats: { rows_read: 1280, rows_written: 1274 },
};

export const exampleRunDag: z.output<typeof runDagSchema> = {
  run_id: exampleRunSucceeded.id,
  job_id: exampleRunSucceeded.job_id,
  pipeline_id: exampleRunSucceeded.pipeline_id,
  pipeline_version: exampleRunSucceeded.pipeline_version,
  dag: exampleDag,
};
