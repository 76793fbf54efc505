// The gateway's answers for component tests, at the fetch boundary: each test names the documents the pages should
// get (typed by the SDK), and sees which requests the console made. The real gateway is tested in e2e/console.e2e.ts.
import type { Dag, Job, Pipeline, Project, Run, RunDag, RunLogLine } from '@conduit/sdk';
import { vi } from 'vitest';

export type Handler = (request: Request, url: URL) => Response | Promise<Response>;

export const json = (body: unknown, status = 200) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

export const problem = (status: number, code: string, detail: string) =>
  new Response(
    JSON.stringify({ type: `/problems/${code}`, title: code, status, code, detail, instance: '/', request_id: 'req' }),
    {
      status,
      headers: { 'content-type': 'application/problem+json' },
    },
  );

/** A live log: each line as an event, then `end`. */
export const eventStream = (lines: RunLogLine[]) =>
  new Response(
    lines.map((line) => `id: ${line.seq}\ndata: ${JSON.stringify(line)}\n\n`).join('') + 'event: end\ndata: {}\n\n',
    { status: 200, headers: { 'content-type': 'text/event-stream' } },
  );

/** Routes "METHOD /path" (path patterns with :params) to handlers, /v2/whoami by default; else a 404 problem. */
export function stubApi(routes: Record<string, Handler>): { requests: Request[] } {
  const requests: Request[] = [];
  const withDefaults: Record<string, Handler> = { 'GET /v2/whoami': () => json(whoAmI), ...routes };
  const table = Object.entries(withDefaults).map(([key, handler]) => {
    const [method, path] = key.split(' ') as [string, string];
    return { method, pattern: new RegExp(`^${path.replace(/:[a-z_]+/g, '[^/]+')}$`), handler };
  });
  vi.stubGlobal(
    'fetch',
    vi.fn(async (input: Request) => {
      requests.push(input);
      const url = new URL(input.url);
      const route = table.find((r) => r.method === input.method && r.pattern.test(url.pathname));
      return route ? route.handler(input, url) : problem(404, 'not_found', `no route ${input.method} ${url.pathname}`);
    }),
  );
  return { requests };
}

/** GET /v2/whoami unless a test says otherwise: a read-write key of the Acme Corp tenant. */
export const whoAmI = {
  tenant: { id: 'tnt_1', name: 'Acme Corp' },
  credential: { kind: 'api_key', id: 'key_1', scopes: ['read', 'write'] },
};

const at = '2026-11-25T10:00:00.000Z';
export const page = <T>(data: T[]) => ({ data, next_cursor: null });

export const project: Project = {
  id: 'prj_1',
  name: 'Sales',
  description: 'Orders and refunds',
  template: null,
  created_at: at,
  updated_at: at,
};

export const dag: Dag = {
  nodes: [
    { id: 'orders', type: 'source', config: { connector_id: 'con_1', table: 'orders' } },
    { id: 'big', type: 'transform', config: { sql: 'select * from orders where amount > 100' } },
    { id: 'out', type: 'sink', config: { connector_id: 'con_1', table: 'big_orders', mode: 'append' } },
  ],
  edges: [
    { from: 'orders', to: 'big' },
    { from: 'big', to: 'out' },
  ],
} as unknown as Dag;

export const validation: Pipeline['validation'] = {
  valid: true,
  errors: [],
  warnings: [],
  execution_order: [['orders'], ['big'], ['out']],
  validated_at: at,
};

export const pipeline: Pipeline = {
  id: 'pip_1',
  project_id: project.id,
  name: 'big-orders',
  description: null,
  dag,
  status: 'valid',
  validation,
  version: 1,
  created_at: at,
  updated_at: at,
};

export const job: Job = {
  id: 'job_1',
  name: 'nightly',
  description: null,
  pipeline_id: pipeline.id,
  schedule: null,
  timezone: 'UTC',
  status: 'active',
  concurrency_policy: 'forbid',
  parameters: {},
  last_run: null,
  next_run_at: null,
  upcoming_runs_at: [],
  created_at: at,
  updated_at: at,
} as unknown as Job;

/** GET /v2/jobs/{id}/runs/{id}/dag: the DAG the run ran, by default the pipeline's, version 1. */
export const runDagOf = (ran: Dag = dag, pipelineVersion = 1): RunDag => ({
  run_id: 'run_1',
  job_id: job.id,
  pipeline_id: pipeline.id,
  pipeline_version: pipelineVersion,
  dag: ran,
});

export function runOf(status: Run['status'], nodes: Partial<Record<string, Run['nodes'][number]['status']>>): Run {
  return {
    id: 'run_1',
    job_id: job.id,
    pipeline_id: pipeline.id,
    pipeline_version: 1,
    status,
    trigger: 'manual',
    attempt: 1,
    parameters: {},
    queued_at: at,
    started_at: at,
    finished_at: null,
    duration_ms: null,
    error: null,
    stats: { rows_read: 0, rows_written: 0 },
    nodes: dag.nodes.map((n) => ({
      id: n.id,
      type: n.type,
      status: nodes[n.id] ?? 'pending',
      attempts: 1,
      rows_in: 0,
      rows_out: 0,
      started_at: null,
      finished_at: null,
      error: null,
      columns: null,
      output: null,
    })),
  } as unknown as Run;
}
