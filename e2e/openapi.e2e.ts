import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { buildOpenApiDocument } from '@conduit/gateway/openapi';
import { call, type ApiResponse } from './support/client.js';
import { uniqueName, waitForRunEnd } from './support/helpers.js';
import { useTargetStack } from './support/target-stack.js';
import type {
  Alert,
  ConnectionTestResult,
  Connector,
  ConnectorTypeDescription,
  Job,
  Metrics,
  Page,
  Pipeline,
  PipelineValidation,
  Project,
  Run,
  RunLogLine,
  Template,
  ProblemDocument,
} from '@conduit/contracts';

// The OpenAPI document the gateway serves (issue 19): public, the one generated from the contracts, and true of the
// real answers: a whole flow's bodies are checked against the document's own schemas, and its documented headers.
/** The parts of the served document these checks read. */
interface DocumentedResponse {
  content?: Record<string, { schema?: { $ref?: string }; examples?: Record<string, { value: { code: string } }> }>;
  headers?: Record<string, { $ref: string }>;
}
interface OpenApiSpec {
  openapi: string;
  paths: Record<string, Record<string, { responses: Record<string, DocumentedResponse>; security?: unknown[] }>>;
  components: { headers: Record<string, { required?: boolean }>; responses: Record<string, DocumentedResponse> };
}
const target = useTargetStack({
  prepare: async (db) => {
    await db.query('create table orders (id integer primary key, amount numeric(12,2) not null)');
    await db.query('insert into orders values (1, 10.50), (2, -1.00), (3, 7.25)');
    await db.query('create table orders_clean (id integer primary key, amount numeric(12,2) not null)');
  },
});
let spec: OpenApiSpec;
let ajv: Ajv2020;

beforeAll(async () => {
  const res = await fetch(`${target.stack.baseUrl}/v2/openapi.json`);
  spec = (await res.json()) as OpenApiSpec;
  // The document's components as one schema resource, so `#/components/schemas/...` refs resolve.
  ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
  ajv.addSchema({ $id: 'conduit', components: spec.components }, 'conduit');
});

/** The schema an operation's success answer declares. */
function answerSchema(path: string, method: string, status: number, media = 'application/json'): ValidateFunction {
  const ref = spec.paths[path]?.[method]?.responses[status]?.content?.[media]?.schema?.$ref;
  if (ref === undefined) throw new Error(`${method} ${path} documents no ${media} schema for ${status}`);
  return ajv.getSchema(`conduit${ref}`)!;
}

/** The answer has the documented status, the documented body, and the documented success headers. */
function expectDocumented(res: ApiResponse, path: string, method: string, status: number): void {
  expect({ status: res.status, text: res.status === status ? '' : res.text }).toEqual({ status, text: '' });
  const validate = answerSchema(path, method, status);
  expect({ path, errors: validate(res.body) ? null : validate.errors }).toEqual({ path, errors: null });
  const headers = spec.paths[path]?.[method]?.responses[status]?.headers ?? {};
  for (const [name, ref] of Object.entries(headers)) {
    const header = spec.components.headers[ref.$ref.split('/').pop()!];
    if (header?.required) expect({ name, value: res.headers.get(name) }).toEqual({ name, value: expect.any(String) });
  }
}

describe('the OpenAPI document', () => {
  it('is public, OpenAPI 3.1, and the document generated from the contracts', async () => {
    expect(spec.openapi).toBe('3.1.0');
    expect(spec).toEqual(JSON.parse(JSON.stringify(buildOpenApiDocument())));
    const docs = await fetch(`${target.stack.baseUrl}/docs`);
    expect(docs.status).toBe(200);
    expect(docs.headers.get('content-type')).toMatch(/text\/html/);
  });

  it('describes the answers of a whole flow: project, connector, pipeline, job, run, logs, metrics', async () => {
    const project = await call<Project>(target.stack, 'POST', '/v2/projects', {
      body: { name: uniqueName('openapi') },
    });
    expectDocumented(project, '/v2/projects', 'post', 201);
    expect(project.headers.get('etag')).toBeTruthy();

    const connector = await call<Connector>(target.stack, 'POST', '/v2/connectors', {
      body: {
        name: uniqueName('db'),
        type: 'postgres',
        project_id: project.body.id,
        config: target.targetDb.config({ password: 'not-needed-here' }),
      },
    });
    expectDocumented(connector, '/v2/connectors', 'post', 201);
    const createBody = ajv.getSchema('conduit#/components/schemas/ConnectorCreate')!;
    expect(createBody({ name: 'x', type: 'postgres', config: target.targetDb.config() })).toBe(true);
    expect(createBody({ name: 'x', type: 'postgres', config: { host: 'h' } })).toBe(false);

    const tested = await call<ConnectionTestResult>(target.stack, 'POST', `/v2/connectors/${connector.body.id}/test`);
    expectDocumented(tested, '/v2/connectors/{connector_id}/test', 'post', 200);

    const dag = {
      nodes: [
        { id: 'orders', type: 'source', config: { connector_id: connector.body.id, table: 'orders' } },
        { id: 'clean', type: 'transform', config: { sql: 'select * from orders where amount > 0' } },
        {
          id: 'load',
          type: 'sink',
          config: { connector_id: connector.body.id, table: 'orders_clean', mode: 'upsert', key: ['id'] },
        },
      ],
      edges: [
        { from: 'orders', to: 'clean' },
        { from: 'clean', to: 'load' },
      ],
    };
    expect(ajv.getSchema('conduit#/components/schemas/Dag')!(dag)).toBe(true);
    const pipeline = await call<Pipeline>(target.stack, 'POST', '/v2/pipelines', {
      body: { name: uniqueName('pln'), project_id: project.body.id, dag },
    });
    expectDocumented(pipeline, '/v2/pipelines', 'post', 201);
    expect(pipeline.body.status).toBe('valid');
    expectDocumented(
      await call<PipelineValidation>(target.stack, 'POST', `/v2/pipelines/${pipeline.body.id}/validate`),
      '/v2/pipelines/{pipeline_id}/validate',
      'post',
      200,
    );

    const job = await call<Job>(target.stack, 'POST', '/v2/jobs', {
      body: { name: uniqueName('job'), pipeline_id: pipeline.body.id, schedule: '0 2 * * *' },
    });
    expectDocumented(job, '/v2/jobs', 'post', 201);

    const triggered = await call<Run>(target.stack, 'POST', `/v2/jobs/${job.body.id}/run`, {
      body: { parameters: { since_days: 7 } },
    });
    expectDocumented(triggered, '/v2/jobs/{job_id}/run', 'post', 202);
    const run = await waitForRunEnd(target.stack, job.body.id, triggered.body.id, 60_000);
    expect(run.status).toBe('succeeded');
    expectDocumented(
      await call(target.stack, 'GET', triggered.headers.get('location')!),
      '/v2/jobs/{job_id}/runs/{run_id}',
      'get',
      200,
    );
    expectDocumented(
      await call<Page<Run>>(target.stack, 'GET', `/v2/jobs/${job.body.id}/runs`),
      '/v2/jobs/{job_id}/runs',
      'get',
      200,
    );
    expectDocumented(
      await call(target.stack, 'GET', `/v2/jobs/${job.body.id}/runs/${run.id}/dag`),
      '/v2/jobs/{job_id}/runs/{run_id}/dag',
      'get',
      200,
    );
    expectDocumented(
      await call<Page<RunLogLine>>(target.stack, 'GET', `/v2/jobs/${job.body.id}/runs/${run.id}/logs`),
      '/v2/jobs/{job_id}/runs/{run_id}/logs',
      'get',
      200,
    );
    expectDocumented(
      await call<Metrics>(target.stack, 'GET', `/v2/metrics?job_id=${job.body.id}&since=1h`),
      '/v2/metrics',
      'get',
      200,
    );
    expectDocumented(await call<Job>(target.stack, 'GET', `/v2/jobs/${job.body.id}`), '/v2/jobs/{job_id}', 'get', 200);
    expectDocumented(
      await call<Pipeline>(target.stack, 'GET', `/v2/pipelines/${pipeline.body.id}`),
      '/v2/pipelines/{pipeline_id}',
      'get',
      200,
    );
    expectDocumented(
      await call<{ data: ConnectorTypeDescription[] }>(target.stack, 'GET', '/v2/connector-types'),
      '/v2/connector-types',
      'get',
      200,
    );
    expectDocumented(
      await call<{ data: Template[] }>(target.stack, 'GET', '/v2/templates'),
      '/v2/templates',
      'get',
      200,
    );
    expectDocumented(await call<Page<Alert>>(target.stack, 'GET', '/v2/alerts'), '/v2/alerts', 'get', 200);
  }, 120_000);

  it("describes drafts as they are answered: an empty DAG, one past validation's limits, a setting out of range", async () => {
    const drafts = [
      { nodes: [], edges: [] },
      {
        nodes: Array.from({ length: 501 }, (_, i) => ({ id: `t${i}`, type: 'transform', config: { sql: 'select 1' } })),
        edges: [],
      },
      { nodes: [{ id: 'x', type: 'nope', config: { timeout_seconds: -5 }, retries: 'many' }], edges: [] },
    ];
    for (const dag of drafts) {
      const created = await call<Pipeline>(target.stack, 'POST', '/v2/pipelines', {
        body: { name: uniqueName('draft'), dag },
      });
      expectDocumented(created, '/v2/pipelines', 'post', 201);
      expect(created.body.status).toBe('invalid');
      expectDocumented(
        await call<Pipeline>(target.stack, 'GET', `/v2/pipelines/${created.body.id}`),
        '/v2/pipelines/{pipeline_id}',
        'get',
        200,
      );
    }
    expectDocumented(await call<Page<Pipeline>>(target.stack, 'GET', '/v2/pipelines'), '/v2/pipelines', 'get', 200);
  }, 60_000);

  it('describes the problems: a 401 is the unauthenticated problem with WWW-Authenticate', async () => {
    const res = await call<ProblemDocument>(target.stack, 'GET', '/v2/projects', { key: null });
    expect(res.status).toBe(401);
    const validate = ajv.getSchema('conduit#/components/schemas/Problem')!;
    expect(validate(res.body) ? null : validate.errors).toBeNull();
    const documented = spec.components.responses.Unauthenticated;
    expect(
      Object.values(documented?.content?.['application/problem+json']?.examples ?? {}).map((e) => e.value.code),
    ).toEqual([res.body.code]);
    expect(res.headers.get('www-authenticate')).toBeTruthy();
  });

  it('marks the public endpoints public, and they answer without a credential', async () => {
    for (const path of ['/healthz', '/readyz']) {
      expect(spec.paths[path]?.get?.security).toEqual([]);
      const res = await fetch(`${target.stack.baseUrl}${path}`);
      expect(res.status).toBe(200);
      const validate = answerSchema(path, 'get', 200);
      expect(validate(await res.json())).toBe(true);
    }
  });
});
