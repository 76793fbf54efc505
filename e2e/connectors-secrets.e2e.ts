import { randomUUID } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { call, type ApiResponse } from './support/client.js';
import {
  closedPort,
  createConnector,
  extractLoadDag,
  listAll,
  nodeOf,
  runDagToEnd,
  uniqueName,
} from './support/helpers.js';
import { useTargetStack } from './support/target-stack.js';
import { startOwnRedis, type OwnRedis } from '@conduit/testing';
import type {
  ConnectionTestResult,
  Connector,
  ConnectorTypeDescription,
  Page,
  Run,
  RunLogLine,
} from '@conduit/contracts';

// Secrets appear in no response, log, error or run log, for every connector type that has secret fields: each is
// created with distinctive secret values, read back, updated with the mask, tested (against the local server where
// one runs; an HTTP server that echoes the credentials it got for http/openai; a closed port for s3) and, for
// postgres, mysql and openai, used by a run.
// debug: the most the services ever log.
const target = useTargetStack({ env: { LOG_LEVEL: 'debug' } });
/** The platform's Redis is refused to connectors: redis connectors get a server of the suite's own. */
let ownRedis: OwnRedis;
let echo: Server;
let echoBase: string;
/** Headers of every request the echo server got. */
const echoed: IncomingHttpHeaders[] = [];
const MASK = '********';

interface ConnectorType {
  type: string;
  secret_fields: string[];
}

/** A secret no other text contains. */
const secretFor = (type: string, field: string): string => `Zq-${type}-${field}-${randomUUID()}`;

/** A config of each type, pointed at the local server (or the echo server, or a closed port), with these secrets. */
async function configFor(type: string, secrets: Record<string, string>): Promise<Record<string, unknown>> {
  switch (type) {
    case 'postgres':
      return { ...target.targetDb.config(), ...secrets };
    case 'mysql':
      return { host: '127.0.0.1', port: 3306, database: 'mysql', user: 'root', ...secrets };
    case 'amqp':
      return { host: '127.0.0.1', port: 5672, username: 'guest', ...secrets };
    case 'nats':
      return { host: '127.0.0.1', port: 4222, user: 'conduit', ...secrets };
    case 'mqtt':
      return { host: '127.0.0.1', port: 1883, username: 'conduit', ...secrets };
    case 'redis':
      return { host: ownRedis.host, port: ownRedis.port, ...secrets };
    case 's3':
      return {
        endpoint: `http://127.0.0.1:${await closedPort()}`,
        bucket: 'conduit-secrets',
        access_key_id: 'AKIAE2E',
        force_path_style: true,
        ...secrets,
      };
    case 'http':
      return {
        base_url: `${echoBase}/api`,
        auth_type: 'header',
        auth_header_name: 'x-api-key',
        username: 'conduit',
        health_path: '/health',
        max_retries: 0,
        ...secrets,
      };
    case 'openai':
      return { base_url: `${echoBase}/v1`, model: 'tiny', ...secrets };
    default:
      throw new Error(`no test config for connector type ${type}: add one so its secrets are checked`);
  }
}

beforeAll(async () => {
  // Refuses everything, quoting the request's headers back (as some servers do): the drivers must scrub them.
  echo = createServer((req, res) => {
    echoed.push(req.headers);
    res
      .writeHead(401, { 'content-type': 'application/json' })
      .end(JSON.stringify({ error: { message: `denied: ${JSON.stringify(req.headers)}` } }));
  });
  await new Promise<void>((resolve) => echo.listen(0, '127.0.0.1', resolve));
  echoBase = `http://127.0.0.1:${(echo.address() as AddressInfo).port}`;
  ownRedis = await startOwnRedis();
});

afterAll(async () => {
  await ownRedis?.destroy();
  echo?.closeAllConnections();
  await new Promise<void>((resolve) => (echo ? echo.close(() => resolve()) : resolve()));
});

/** No response text, and no line any service logged, holds any of these secrets. */
function expectNowhere(secrets: string[], ...responses: ApiResponse[]): void {
  for (const res of responses) {
    for (const secret of secrets) expect(res.text).not.toContain(secret);
  }
  const leaking = target.stack
    .logs()
    .split('\n')
    .filter((line) => secrets.some((s) => line.includes(s)));
  expect(leaking).toEqual([]);
}

/** Every line of a run's log, page by page. */
async function runLogs(jobId: string, runId: string): Promise<ApiResponse<Page<RunLogLine>>[]> {
  const pages: ApiResponse<Page<RunLogLine>>[] = [];
  let cursor: string | null = null;
  do {
    const page: ApiResponse<Page<RunLogLine>> = await call<Page<RunLogLine>>(
      target.stack,
      'GET',
      `/v2/jobs/${jobId}/runs/${runId}/logs?limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
    );
    expect(page.status).toBe(200);
    pages.push(page);
    cursor = page.body.next_cursor;
  } while (cursor);
  return pages;
}

/** Runs the DAG to its end; answers the run and every response that showed it (status, run logs). */
async function runAndCollect(dag: Record<string, unknown>) {
  const run = await runDagToEnd(target.stack, dag, 30_000);
  const jobId = run.job_id;
  const status = await call<Run>(target.stack, 'GET', `/v2/jobs/${jobId}/runs/${run.id}`);
  const runs = await call<Page<Run>>(target.stack, 'GET', `/v2/jobs/${jobId}/runs`);
  const logs = await runLogs(jobId, run.id);
  const lines = logs.flatMap((page) => page.body.data);
  return { run, responses: [status, runs, ...logs], lines };
}

describe('secrets of every connector type', () => {
  it('are masked in create, get, list and update, kept by the mask, and absent from Test Connection and the logs', async () => {
    const typesRes = await call<{ data: ConnectorTypeDescription[] }>(target.stack, 'GET', '/v2/connector-types');
    expect(typesRes.status).toBe(200);
    const types = (Array.isArray(typesRes.body) ? typesRes.body : typesRes.body.data) as ConnectorType[];
    const withSecrets = types.filter((t) => t.secret_fields.length > 0);
    expect(withSecrets.map((t) => t.type).sort()).toEqual([
      'amqp',
      'http',
      'mqtt',
      'mysql',
      'nats',
      'openai',
      'postgres',
      'redis',
      's3',
    ]);

    const everySecret: string[] = [];
    for (const { type, secret_fields: fields } of withSecrets) {
      const secrets = Object.fromEntries(fields.map((field) => [field, secretFor(type, field)]));
      const values = Object.values(secrets);
      everySecret.push(...values);
      const masked = Object.fromEntries(fields.map((field) => [field, MASK]));

      const created = await call<Connector>(target.stack, 'POST', '/v2/connectors', {
        body: { name: uniqueName(type), type, config: await configFor(type, secrets) },
      });
      expect({ type, status: created.status }).toEqual({ type, status: 201 });
      expect(created.body.config).toMatchObject(masked);
      const id = created.body.id;

      const got = await call<Connector>(target.stack, 'GET', `/v2/connectors/${id}`);
      expect(got.body.config).toMatchObject(masked);
      const listed = await call<Page<Connector>>(target.stack, 'GET', `/v2/connectors?type=${type}&limit=200`);
      expect(listed.status).toBe(200);
      expect(listed.body.data.find((c: { id: string }) => c.id === id)?.config).toMatchObject(masked);

      const updated = await call<Connector>(target.stack, 'PUT', `/v2/connectors/${id}`, {
        body: { name: uniqueName(type), config: got.body.config },
        headers: { 'if-match': got.headers.get('etag') ?? '' },
      });
      expect({ type, status: updated.status }).toEqual({ type, status: 200 });
      expect(updated.body.config).toMatchObject(masked);

      const sentBefore = echoed.length;
      const started = Date.now();
      const tested = await call<ConnectionTestResult>(target.stack, 'POST', `/v2/connectors/${id}/test`);
      expect({ type, status: tested.status }).toEqual({ type, status: 200 });
      expect(Date.now() - started).toBeLessThan(11_000);
      expect(tested.body).toMatchObject({ ok: expect.any(Boolean), checks: expect.any(Array) });
      const afterTest = await call<Connector>(target.stack, 'GET', `/v2/connectors/${id}`);
      expectNowhere(values, created, got, listed, updated, tested, afterTest);

      // The echo server saw the credentials the mask kept, so its quoted answer really held them.
      if (type === 'http') {
        expect(echoed.slice(sentBefore).map((h) => h['x-api-key'])).toEqual([secrets['auth_header_value']]);
        expect(tested.body).toMatchObject({
          ok: false,
          error_class: 'config_error',
          message: expect.stringContaining('HTTP 401'),
        });
      }
      if (type === 'openai') {
        expect(echoed.slice(sentBefore).map((h) => h.authorization)).toEqual([`Bearer ${secrets['api_key']}`]);
        expect(tested.body).toMatchObject({ ok: false, error_class: 'config_error' });
      }
    }
    const all = await listAll(target.stack, '/v2/connectors');
    expect(all.length).toBeGreaterThanOrEqual(withSecrets.length);
    for (const secret of everySecret) expect(JSON.stringify(all)).not.toContain(secret);
  });
});

describe('secrets in runs', () => {
  it('postgres: a run with a password-holding connector shows it in no status, node or run log line', async () => {
    const password = secretFor('postgres', 'run');
    await target.db.query('create table secret_src (id int primary key, label text)');
    await target.db.query(`create table secret_dst (id int primary key, label text)`);
    await target.db.query(`insert into secret_src select g, 'row ' || g from generate_series(1, 50) g`);
    const connector = await createConnector(target.stack, 'postgres', target.targetDb.config({ password }), 'pg');
    const { run, responses, lines } = await runAndCollect(
      extractLoadDag(
        { connector_id: connector, table: 'secret_src' },
        { connector_id: connector, table: 'secret_dst', mode: 'append' },
      ),
    );
    expect(run.status).toBe('succeeded');
    expect(nodeOf(run, 'load')).toMatchObject({ status: 'succeeded', rows_out: 50 });
    expect((await target.db.query('select count(*)::int as n from secret_dst')).rows).toEqual([{ n: 50 }]);
    expect(lines.length).toBeGreaterThan(0);
    expectNowhere([password], ...responses);
  });

  it('mysql: a run failing on a rejected password shows it in no error, node or run log line', async () => {
    const password = secretFor('mysql', 'run');
    const mysqlConfig = { host: '127.0.0.1', port: 3306, database: 'mysql', user: 'root', password };
    const connector = await createConnector(target.stack, 'mysql', mysqlConfig, 'maria');
    const { run, responses } = await runAndCollect(
      extractLoadDag(
        { connector_id: connector, query: 'select 1 as one', retries: 0 },
        { connector_id: target.connectorId, table: 'never_made', mode: 'append' },
      ),
    );
    expect(run.status).toBe('failed');
    expect(run.error).toMatchObject({ node_id: 'extract', message: expect.stringMatching(/denied/i) });
    expectNowhere([password], ...responses);
  });

  it('openai: an llm decision whose key is refused (and quoted back) shows it in no output, node or run log line', async () => {
    const apiKey = secretFor('openai', 'run');
    const llmConfig = { base_url: `${echoBase}/v1`, model: 'tiny', api_key: apiKey };
    const llm = await createConnector(target.stack, 'openai', llmConfig, 'llm');
    const sentBefore = echoed.length;
    const { run, responses } = await runAndCollect({
      nodes: [
        { id: 'extract', type: 'source', config: { connector_id: target.connectorId, query: 'select 1 as id' } },
        {
          id: 'route',
          type: 'decision',
          config: {
            strategy: 'llm',
            connector_id: llm,
            prompt: 'Rows: {{rows}}',
            choices: ['a', 'b'],
            default: 'a',
          },
        },
        { id: 'next', type: 'transform', config: { sql: 'select * from route' } },
      ],
      edges: [
        { from: 'extract', to: 'route' },
        { from: 'route', to: 'next', when: 'a' },
      ],
    });
    expect(echoed.slice(sentBefore).map((h) => h.authorization)).toEqual([`Bearer ${apiKey}`]);
    // A failed answer (api.md): the default is taken, and the reason says what to fix.
    expect(run.status).toBe('succeeded');
    expect(run.nodes.find((n) => n.id === 'route')?.output).toMatchObject({
      choice: 'a',
      fell_back: true,
      reason: expect.stringContaining('rejected its api_key (HTTP 401)'),
    });
    expectNowhere([apiKey], ...responses);
  });
});
