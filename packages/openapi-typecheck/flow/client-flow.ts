// A whole flow with a client typed from the OpenAPI document (openapi-typescript + openapi-fetch), as a user writes
// it: no cast, no `any`. Compiled under tsc --strict by src/typed-client.spec.ts; never run.
import createClient from 'openapi-fetch';
import type { components, operations, paths } from './generated/api.js';

type Run = components['schemas']['Run'];

export async function nightlyOrders(baseUrl: string, apiKey: string): Promise<Run> {
  const client = createClient<paths>({ baseUrl, headers: { 'X-API-Key': apiKey } });

  const project = await client.POST('/v2/projects', {
    params: { header: { 'Idempotency-Key': 'create-sales-analytics' } },
    body: { name: 'Sales analytics', description: 'Orders into the warehouse, every night.' },
  });
  if (!project.data) throw new Error(`${project.error.code}: ${project.error.detail}`);

  const connector = await client.POST('/v2/connectors', {
    body: {
      name: 'shop-db',
      type: 'postgres',
      project_id: project.data.id,
      config: {
        host: 'shop-db.internal',
        database: 'shop',
        user: 'conduit_reader',
        password: 'correct-horse',
        ssl: 'require',
      },
    },
  });
  if (!connector.data) throw new Error(connector.error.detail);
  const tested = await client.POST('/v2/connectors/{connector_id}/test', {
    params: { path: { connector_id: connector.data.id } },
  });
  if (tested.data && !tested.data.ok) throw new Error(`${tested.data.error_class ?? 'error'}: ${tested.data.message}`);

  const pipeline = await client.POST('/v2/pipelines', {
    body: {
      name: 'orders-to-warehouse',
      project_id: project.data.id,
      dag: {
        nodes: [
          { id: 'orders', type: 'source', config: { connector_id: connector.data.id, table: 'orders' } },
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
            config: { connector_id: connector.data.id, table: 'orders_clean', mode: 'upsert', key: ['id'] },
          },
        ],
        edges: [
          { from: 'orders', to: 'clean' },
          { from: 'clean', to: 'route' },
          { from: 'route', to: 'to_dw', when: 'load' },
        ],
      },
    },
  });
  if (!pipeline.data) throw new Error(pipeline.error.detail);
  if (pipeline.data.status === 'invalid')
    throw new Error(pipeline.data.validation.errors.map((e) => e.message).join('; '));

  const job = await client.POST('/v2/jobs', {
    body: { name: 'nightly-orders', pipeline_id: pipeline.data.id, schedule: '0 2 * * *', timezone: 'Europe/Paris' },
  });
  if (!job.data) throw new Error(job.error.detail);

  const triggered = await client.POST('/v2/jobs/{job_id}/run', {
    params: { path: { job_id: job.data.id } },
    body: { parameters: { since_days: 7 } },
  });
  if (!triggered.data)
    throw new Error(triggered.error.code === 'run_in_progress' ? 'already running' : triggered.error.detail);

  const run = await client.GET('/v2/jobs/{job_id}/runs/{run_id}', {
    params: { path: { job_id: job.data.id, run_id: triggered.data.id } },
  });
  if (!run.data) throw new Error(run.error.detail);
  const finished: boolean =
    run.data.status === 'succeeded' || run.data.status === 'failed' || run.data.status === 'canceled';
  const rows: number = run.data.nodes.reduce((sum, node) => sum + node.rows_out, finished ? 0 : 0);
  return rows >= 0 ? run.data : triggered.data;
}

/** Every operation whose success answer has a body types it: none is `never`. */
type IsNever<T> = [T] extends [never] ? true : false;
type SuccessBody<R> = {
  [S in keyof R]: S extends 200 | 201 | 202 ? (R[S] extends { content: infer C } ? C[keyof C] : never) : never;
}[keyof R];
type UntypedAnswers = {
  [K in keyof operations]: operations[K]['responses'] extends { 204: unknown }
    ? never
    : IsNever<SuccessBody<operations[K]['responses']>> extends true
      ? K
      : never;
}[keyof operations];
export const everyAnswerTyped: IsNever<UntypedAnswers> = true;
