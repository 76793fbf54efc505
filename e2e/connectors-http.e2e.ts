import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { call } from './support/client.js';
import { createConnector, extractLoadDag, nodeOf, runDagToEnd, uniqueName } from './support/helpers.js';
import { useTargetStack } from './support/target-stack.js';
import type { ConnectionTestResult, Connector, Pipeline } from '@conduit/contracts';

// REST API category end to end: paged JSON records behind bearer auth copied into PostgreSQL by a run, and the
// DAG's check that a connector can play its node's role.
const target = useTargetStack({
  prepare: async (db) => {
    await db.query(
      'create table api_orders (id int primary key, customer text, amount numeric(12,2), created_at timestamptz)',
    );
  },
});
let api: Server;
let apiBase: string;
const token = `tok-${randomUUID()}`;
const TOTAL = 250;
const PER_PAGE = 100;
const orders = Array.from({ length: TOTAL }, (_, i) => ({
  id: i + 1,
  customer: `customer ${i % 13}`,
  amount: Math.round(i * 7.25 * 100) / 100,
  created_at: new Date(Date.UTC(2024, 4, 1) + i * 3_600_000).toISOString(),
}));
/** Requests the API received: path and query, and whether they carried the token. */
const received: { url: string; authorized: boolean }[] = [];
let failedOnce = false;

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
}

function handle(req: IncomingMessage, res: ServerResponse): void {
  const url = new URL(req.url ?? '/', 'http://api');
  const authorized = req.headers.authorization === `Bearer ${token}`;
  received.push({ url: `${url.pathname}${url.search}`, authorized });
  if (!authorized) return send(res, 401, { error: 'missing or wrong bearer token' });
  if (url.pathname === '/api/v1/health') return send(res, 200, { status: 'ok' });
  if (url.pathname !== '/api/v1/orders') return send(res, 404, { error: 'not found' });
  const page = Number(url.searchParams.get('page'));
  const perPage = Number(url.searchParams.get('per_page'));
  // One transient failure on the second page: the run must retry it (Retry-After) rather than fail or skip it.
  if (page === 2 && !failedOnce) {
    failedOnce = true;
    return send(res, 503, { error: 'busy' }, { 'retry-after': '0' });
  }
  const items = orders.slice((page - 1) * perPage, page * perPage);
  send(res, 200, { data: { items }, meta: { page, per_page: perPage, total: TOTAL } });
}

beforeAll(async () => {
  api = createServer(handle);
  await new Promise<void>((resolve) => api.listen(0, '127.0.0.1', resolve));
  apiBase = `http://127.0.0.1:${(api.address() as AddressInfo).port}`;
});

afterAll(async () => {
  api?.closeAllConnections();
  await new Promise<void>((resolve) => (api ? api.close(() => resolve()) : resolve()));
});

describe('http -> postgres', () => {
  it('copies every page of a bearer-protected JSON API into PostgreSQL, retrying a 503', async () => {
    const httpConnector = await call<Connector>(target.stack, 'POST', '/v2/connectors', {
      body: {
        name: uniqueName('api'),
        type: 'http',
        config: {
          base_url: `${apiBase}/api/v1`,
          auth_type: 'bearer',
          bearer_token: token,
          health_path: '/health',
          max_retry_wait_ms: 1000,
        },
      },
    });
    expect(httpConnector.status).toBe(201);
    expect(httpConnector.body.config.bearer_token).toBe('********');
    const tested = await call<ConnectionTestResult>(
      target.stack,
      'POST',
      `/v2/connectors/${httpConnector.body.id}/test`,
    );
    expect(tested.body).toMatchObject({ ok: true, error_class: null });
    expect(tested.text).not.toContain(token);

    const dag = extractLoadDag(
      {
        connector_id: httpConnector.body.id,
        path: '/orders',
        records_path: 'data.items',
        pagination: 'page',
        per_page: PER_PAGE,
      },
      { connector_id: target.connectorId, table: 'api_orders', mode: 'append' },
    );
    // From here on, only the run's requests (the test above called /health).
    received.length = 0;
    const run = await runDagToEnd(target.stack, dag, 45_000);
    expect(run.status).toBe('succeeded');
    expect(nodeOf(run, 'extract')).toMatchObject({ status: 'succeeded', rows_out: TOTAL });
    expect(nodeOf(run, 'load')).toMatchObject({ status: 'succeeded', rows_out: TOTAL });
    expect(JSON.stringify(run)).not.toContain(token);

    // Pages 1..3 (the third is short, so paging stops), page 2 twice, every request with the token.
    expect(received).toEqual([
      { url: '/api/v1/orders?page=1&per_page=100', authorized: true },
      { url: '/api/v1/orders?page=2&per_page=100', authorized: true },
      { url: '/api/v1/orders?page=2&per_page=100', authorized: true },
      { url: '/api/v1/orders?page=3&per_page=100', authorized: true },
    ]);
    const { rows } = await target.db.query<{ id: number; customer: string; amount: string; created_at: Date }>(
      'select id, customer, amount::text as amount, created_at from api_orders order by id',
    );
    expect(rows).toEqual(
      orders.map((o) => ({
        id: o.id,
        customer: o.customer,
        amount: o.amount.toFixed(2),
        created_at: new Date(o.created_at),
      })),
    );
  });

  it('says when the token is wrong (config_error, HTTP 401) without showing it', async () => {
    const wrong = `tok-${randomUUID()}`;
    const connector = await createConnector(target.stack, 'http', {
      base_url: `${apiBase}/api/v1`,
      auth_type: 'bearer',
      bearer_token: wrong,
      health_path: '/health',
    });
    const tested = await call<ConnectionTestResult>(target.stack, 'POST', `/v2/connectors/${connector}/test`);
    expect(tested.body).toMatchObject({
      ok: false,
      error_class: 'config_error',
      message: expect.stringContaining('HTTP 401'),
    });
    expect(tested.text).not.toContain(wrong);
  });
});

describe('connector roles', () => {
  it('reports a connector whose type cannot serve its node (connector_unfit): an llm connector as a sink, an api as llm', async () => {
    const llm = await createConnector(target.stack, 'openai', { base_url: `${apiBase}/v1`, model: 'tiny' });
    const restApi = await createConnector(target.stack, 'http', { base_url: apiBase });
    const dag = {
      nodes: [
        { id: 'extract', type: 'source', config: { connector_id: target.connectorId, table: 'api_orders' } },
        {
          id: 'route',
          type: 'decision',
          config: {
            strategy: 'llm',
            connector_id: restApi,
            prompt: 'Rows: {{row_count}}',
            choices: ['a', 'b'],
            default: 'a',
          },
        },
        { id: 'load', type: 'sink', config: { connector_id: llm, table: 'answers' } },
      ],
      edges: [
        { from: 'extract', to: 'route' },
        { from: 'route', to: 'load', when: 'a' },
      ],
    };
    const res = await call<Pipeline>(target.stack, 'POST', '/v2/pipelines', {
      body: { name: uniqueName('unfit'), dag },
    });
    expect(res.status).toBe(201);
    expect(res.body.status).toBe('invalid');
    const unfit = res.body.validation.errors.filter((e: { code: string }) => e.code === 'connector_unfit');
    expect(unfit).toEqual([
      expect.objectContaining({ node_id: 'route', path: 'nodes[1].config.connector_id' }),
      expect.objectContaining({ node_id: 'load', path: 'nodes[2].config.connector_id' }),
    ]);
    expect(res.body.validation.errors.map((e: { code: string }) => e.code)).toEqual([
      'connector_unfit',
      'connector_unfit',
    ]);
  });
});
