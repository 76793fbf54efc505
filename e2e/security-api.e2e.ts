import { connect } from 'node:net';
import { startStack, stopProcess, type Stack } from '@conduit/testing';
import { call, expectProblem, type ApiResponse } from './support/client.js';
import { mintToken, uniqueName, waitFor } from './support/helpers.js';
import { parsePrometheusText } from './support/prometheus-text.js';
import type { ApiKey, CreatedApiKey, Metrics, Page, Pipeline, ProblemDocument, Tenant } from '@conduit/contracts';

// Issue #14, findings 7, 8, 10 and 11, as the attacker did them: an ordinary tenant's write-scoped key against a
// stack of one process per service. Each test asserts the documented refusal and that nothing changed.
const RECHECK_MS = 500;
let stack: Stack;
/** The attacker's tenant: its admin key (to revoke keys) and the write-scoped key the attacker holds. */
let tenantId: string;
let adminKey: string;
let attackerKey: string;
/** The attacker's own resources, and the victim's (the bootstrap tenant's). */
const mine: Record<string, string> = {};
const victim: Record<string, string> = {};
const MISSING = {
  job: 'job_01J0000000000000000000000Z',
  run: 'run_01J0000000000000000000000Z',
  webhook: 'whk_01J0000000000000000000000Z',
  project: 'prj_01J0000000000000000000000Z',
  pipeline: 'pln_01J0000000000000000000000Z',
};

const dag = (connectorId: string) => ({
  nodes: [
    { id: 'one', type: 'source', config: { connector_id: connectorId, query: 'select 1 as n' } },
    { id: 'same', type: 'transform', config: { sql: 'select n from one' } },
  ],
  edges: [{ from: 'one', to: 'same' }],
});

async function must<T = { id: string }>(res: Promise<ApiResponse<T>>, status = 201): Promise<T> {
  const answer = await res;
  if (answer.status !== status) throw new Error(`answered ${answer.status}: ${answer.text}`);
  return answer.body;
}

/** A project, a connector, a valid pipeline, a job with one (queued) run and a webhook, made with `key`. */
async function resourcesOf(key: string, into: Record<string, string>): Promise<void> {
  const post = <T = { id: string }>(path: string, body: unknown, status = 201) =>
    must<T>(call<T>(stack, 'POST', path, { key, body }), status);
  into.project = (await post('/v2/projects', { name: uniqueName('prj') })).id;
  into.connector = (
    await post('/v2/connectors', {
      name: uniqueName('wh'),
      type: 'duckdb',
      config: { path: `sec/${uniqueName('db')}.duckdb` },
    })
  ).id;
  into.pipeline = (
    await post('/v2/pipelines', { name: uniqueName('pln'), project_id: into.project, dag: dag(into.connector) })
  ).id;
  into.job = (await post('/v2/jobs', { name: uniqueName('job'), pipeline_id: into.pipeline })).id;
  into.run = (await post(`/v2/jobs/${into.job}/run`, {}, 202)).id;
  into.webhook = (
    await post('/v2/webhooks', {
      url: 'http://127.0.0.1:9/hook',
      events: ['job.failed'],
      secret: 'a-secret-of-16-chars-or-more',
    })
  ).id;
}

beforeAll(async () => {
  stack = await startStack({
    STREAM_AUTH_RECHECK_MS: String(RECHECK_MS),
    JWT_CLOCK_TOLERANCE_S: '0',
    RATE_LIMIT_PER_MINUTE: '100000',
    WEBHOOK_ALLOW_HTTP: 'true',
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
  });
  // No executor: triggered runs stay queued, so a live log stream stays open as long as a test needs.
  await stopProcess(stack.processes.find((p) => p.name === 'executor')!.child);
  const tenant = await must(
    call<{ tenant: Tenant; api_key: CreatedApiKey }>(stack, 'POST', '/v2/tenants', {
      body: { name: uniqueName('attacker') },
    }),
  );
  const created = tenant as unknown as { tenant: { id: string }; api_key: { key: string } };
  tenantId = created.tenant.id;
  adminKey = created.api_key.key;
  attackerKey = (
    await must<{ key: string }>(
      call<CreatedApiKey>(stack, 'POST', '/v2/api-keys', {
        key: adminKey,
        body: { name: 'ci', scopes: ['read', 'write'] },
      }),
    )
  ).key;
  await resourcesOf(attackerKey, mine);
  await resourcesOf(stack.bootstrapKey, victim);
}, 90_000);

afterAll(async () => {
  await stack?.stop();
});

interface SseEvent {
  event?: string;
  data: string;
}

/** Opens a live log stream; `ended` resolves with every event and the time the server closed the stream. */
async function openStream(jobId: string, runId: string, headers: Record<string, string>) {
  const res = await fetch(`${stack.baseUrl}/v2/jobs/${jobId}/runs/${runId}/logs`, {
    headers: { accept: 'text/event-stream', ...headers },
    signal: AbortSignal.timeout(30_000),
  });
  const ended = (async () => {
    const events: SseEvent[] = [];
    let buffer = '';
    const decoder = new TextDecoder();
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      buffer += decoder.decode(chunk, { stream: true });
      for (let at = buffer.indexOf('\n\n'); at >= 0; at = buffer.indexOf('\n\n')) {
        const event: SseEvent = { data: '' };
        for (const line of buffer.slice(0, at).split('\n')) {
          const [field, ...rest] = line.split(': ');
          if (field === 'event') event.event = rest.join(': ');
          else if (field === 'data') event.data += rest.join(': ');
        }
        events.push(event);
        buffer = buffer.slice(at + 2);
      }
    }
    return { events, at: Date.now() };
  })();
  return { status: res.status, ended };
}

describe('finding 7: a live log stream ends once its credential no longer holds', () => {
  it('closes within the re-check interval after DELETE of its API key, with an error event', async () => {
    const key = await must<{ id: string; key: string }>(
      call<CreatedApiKey>(stack, 'POST', '/v2/api-keys', { key: adminKey, body: { name: 'tail', scopes: ['read'] } }),
    );
    const stream = await openStream(mine.job!, mine.run!, { 'x-api-key': key.key });
    expect(stream.status).toBe(200);
    // Still open well past one interval while the key holds.
    const early = await Promise.race([
      stream.ended.then(() => 'ended'),
      new Promise((r) => setTimeout(() => r('open'), RECHECK_MS * 3)),
    ]);
    expect(early).toBe('open');

    expect((await call(stack, 'DELETE', `/v2/api-keys/${key.id}`, { key: adminKey })).status).toBe(204);
    const revokedAt = Date.now();
    const { events, at } = await stream.ended;
    expect(at - revokedAt).toBeLessThan(RECHECK_MS + 1000);
    const last = events.at(-1);
    expect(last?.event).toBe('error');
    expect(JSON.parse(last!.data)).toMatchObject({
      status: 401,
      code: 'unauthenticated',
      type: expect.any(String),
      request_id: expect.any(String),
    });
  });

  it('closes once its bearer token expires', async () => {
    const token = await mintToken(stack, { tenant_id: tenantId, scope: 'read', expiresInS: 2 });
    const expiresAt = (Math.floor(Date.now() / 1000) + 2) * 1000;
    const stream = await openStream(mine.job!, mine.run!, { authorization: `Bearer ${token}` });
    expect(stream.status).toBe(200);
    const { events, at } = await stream.ended;
    expect(at).toBeGreaterThanOrEqual(expiresAt - 1000);
    expect(at - expiresAt).toBeLessThan(RECHECK_MS + 1500);
    expect(JSON.parse(events.at(-1)!.data)).toMatchObject({
      status: 401,
      code: 'unauthenticated',
      detail: 'token expired',
    });
  });
});

/** Sends one request as raw bytes (a NUL in a header cannot go through fetch) and answers status, headers, body. */
function rawRequest(head: string, body = ''): Promise<{ status: number; headers: string; body: string }> {
  const { port } = new URL(stack.baseUrl);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1', () =>
      socket.end(`${head}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`),
    );
    let out = '';
    socket.on('data', (chunk) => (out += chunk.toString('utf8')));
    socket.on('error', reject);
    socket.on('close', () => {
      const [headers = '', ...rest] = out.split('\r\n\r\n');
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(headers)?.[1]), headers, body: rest.join('\r\n\r\n') });
    });
  });
}

interface Operation {
  method: string;
  path: string;
  query: string[];
  hasBody: boolean;
}

/** Every operation of the public API, from the OpenAPI document the gateway serves. */
async function operations(): Promise<Operation[]> {
  type Spec = {
    paths: Record<string, Record<string, { parameters?: { in: string; name: string }[]; requestBody?: unknown }>>;
  };
  const spec = (await (await fetch(`${stack.baseUrl}/v2/openapi.json`)).json()) as Spec;
  return Object.entries(spec.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, op]) => ({
      method: method.toUpperCase(),
      path,
      query: (op.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name),
      hasBody: ['POST', 'PUT', 'PATCH'].includes(method.toUpperCase()),
    })),
  );
}

/** The path with the attacker's own ids, or `nul` in place of the one named parameter. */
function concrete(path: string, nulIn?: string): string {
  return path.replace(/\{([a-z_]+)\}/g, (_, name: string) => {
    const id = name === 'key_id' ? 'key_01J0000000000000000000000Z' : (mine[name.replace(/_id$/, '')] ?? 'x');
    return name === nulIn ? `${id}%00` : id;
  });
}

/** What the attacker's tenant holds: the same before and after every refused request. */
async function snapshot(): Promise<string> {
  const lists = [
    '/v2/projects',
    '/v2/pipelines',
    '/v2/connectors',
    '/v2/jobs',
    `/v2/jobs/${mine.job}/runs`,
    '/v2/webhooks',
  ];
  const answers = await Promise.all(lists.map((path) => call(stack, 'GET', `${path}?limit=200`, { key: attackerKey })));
  const keys = await call<Page<ApiKey>>(stack, 'GET', '/v2/api-keys?limit=200', { key: adminKey });
  return JSON.stringify([...answers, keys].map((a) => a.body));
}

describe('finding 8: a NUL character in any input is a 400/422 problem, never a 500, and changes nothing', () => {
  let ops: Operation[];
  let before: string;
  beforeAll(async () => {
    ops = await operations();
    before = await snapshot();
  });
  afterAll(async () => {
    expect(await snapshot()).toBe(before);
  });

  it('the sweep covers every operation of the API', () => {
    expect(ops.length).toBeGreaterThanOrEqual(35);
    expect(ops).toContainEqual(
      expect.objectContaining({ method: 'GET', path: '/v2/jobs/{job_id}/runs/{run_id}/logs' }),
    );
  });

  it('in each path parameter of each operation: 400', async () => {
    let checked = 0;
    for (const op of ops) {
      for (const [, name] of op.path.matchAll(/\{([a-z_]+)\}/g)) {
        const res = await call<ProblemDocument>(stack, op.method, concrete(op.path, name), {
          key: attackerKey,
          ...(op.hasBody ? { body: {} } : {}),
        });
        expectProblem(res, 400, 'invalid_parameter');
        expect(res.body.errors).toEqual([expect.objectContaining({ path: name, code: 'invalid_characters' })]);
        checked++;
      }
    }
    expect(checked).toBeGreaterThanOrEqual(25);
  });

  it('in each query parameter of each operation: 400 (logs?node_id=%00 was a 500)', async () => {
    let checked = 0;
    for (const op of ops) {
      for (const name of op.query) {
        for (const accept of ['application/json', 'text/event-stream']) {
          const res = await call<ProblemDocument>(stack, op.method, `${concrete(op.path)}?${name}=a%00b`, {
            key: attackerKey,
            headers: { accept },
          });
          expectProblem(res, 400, 'invalid_parameter');
          expect(res.body.errors).toEqual([expect.objectContaining({ path: name, code: 'invalid_characters' })]);
          checked++;
        }
      }
    }
    expect(checked).toBeGreaterThanOrEqual(20);
  });

  it('in a JSON body of each operation that takes one, in a value and in a key: 422', async () => {
    const withBody = ops.filter((op) => op.hasBody);
    expect(withBody.length).toBeGreaterThanOrEqual(15);
    for (const op of withBody) {
      for (const body of [{ name: 'a\u0000b' }, { config: { 'k\u0000': 1 } }]) {
        const res = await call<ProblemDocument>(stack, op.method, concrete(op.path), { key: attackerKey, body });
        expectProblem(res, 422, 'validation_failed');
        expect(res.body.errors).toEqual([expect.objectContaining({ code: 'invalid_characters' })]);
      }
    }
  });

  it('in a header (Idempotency-Key, X-API-Key, Last-Event-ID) of each operation: 400', async () => {
    for (const op of ops) {
      for (const [key, extra] of [
        [attackerKey, 'Idempotency-Key: a\u0000b'],
        [`${attackerKey}\u0000`, 'Accept: application/json'],
        [attackerKey, 'Last-Event-ID: 1\u0000'],
      ] as const) {
        const head = `${op.method} ${concrete(op.path)} HTTP/1.1\r\nHost: 127.0.0.1\r\nX-API-Key: ${key}\r\nContent-Type: application/json\r\n${extra}`;
        const res = await rawRequest(head, op.hasBody ? '{}' : '');
        expect({ op: `${op.method} ${op.path}`, status: res.status }).toEqual({
          op: `${op.method} ${op.path}`,
          status: 400,
        });
        expect(res.headers).toMatch(/\r\ncontent-type: application\/problem\+json/i);
        expect(JSON.parse(res.body)).toMatchObject({
          status: 400,
          code: 'invalid_parameter',
          request_id: expect.any(String),
        });
      }
    }
  });

  it('a request with no route and a NUL, and one without a credential, are problems too', async () => {
    expectProblem(await call(stack, 'GET', '/v2/nothing?x=%00', { key: attackerKey }), 400, 'invalid_parameter');
    expectProblem(await call(stack, 'GET', `/v2/projects/${mine.project}%00`, { key: null }), 400, 'invalid_parameter');
  });
});

/** An answer without what differs on every request or echoes the id asked for: what an attacker can compare. */
function comparable(res: ApiResponse): unknown {
  const rest: Record<string, unknown> = { ...(res.body ?? {}) };
  delete rest['request_id'];
  delete rest['instance'];
  const body = JSON.stringify(res.body && typeof res.body === 'object' ? rest : res.text).replace(
    /\b[a-z]{3}_[0-9A-Za-z]{26}\b/g,
    '<id>',
  );
  return { status: res.status, contentType: res.headers.get('content-type'), body };
}

describe("finding 10: another tenant's resource in a filter reads exactly like a missing one", () => {
  const get = (path: string) => call(stack, 'GET', path, { key: attackerKey });

  it('metrics of another tenant’s job is a 404, as for a job that does not exist', async () => {
    const foreign = await get(`/v2/metrics?job_id=${victim.job}`);
    expectProblem(foreign, 404, 'not_found');
    expect(comparable(foreign)).toEqual(comparable(await get(`/v2/metrics?job_id=${MISSING.job}`)));
    // The victim still sees its own, and the attacker its own job's.
    expect((await call<Metrics>(stack, 'GET', `/v2/metrics?job_id=${victim.job}`)).status).toBe(200);
    expect((await get(`/v2/metrics?job_id=${mine.job}&since=1h`)).body).toMatchObject({ job_id: mine.job });
  });

  it.each([
    ['alerts by job', (id: Record<string, string>) => `/v2/alerts?job_id=${id.job}`],
    ['pipelines by project', (id: Record<string, string>) => `/v2/pipelines?project_id=${id.project}`],
    ['connectors by project', (id: Record<string, string>) => `/v2/connectors?project_id=${id.project}`],
    ['jobs by pipeline', (id: Record<string, string>) => `/v2/jobs?pipeline_id=${id.pipeline}`],
    ['runs of a job', (id: Record<string, string>) => `/v2/jobs/${id.job}/runs`],
    ['a run of a job', (id: Record<string, string>) => `/v2/jobs/${id.job}/runs/${id.run}`],
    ['logs of a run', (id: Record<string, string>) => `/v2/jobs/${id.job}/runs/${id.run}/logs`],
    [
      'logs of another tenant’s run under my job',
      (id: Record<string, string>) => `/v2/jobs/${mine.job}/runs/${id.run}/logs`,
    ],
    ['deliveries of a webhook', (id: Record<string, string>) => `/v2/webhooks/${id.webhook}/deliveries`],
  ])('%s', async (_what, path) => {
    const foreign = await get(path(victim));
    expect(comparable(foreign)).toEqual(comparable(await get(path(MISSING))));
    expect([200, 404]).toContain(foreign.status);
    if (foreign.status === 200) expect(foreign.body).toEqual({ data: [], next_cursor: null });
  });

  it.each([
    [
      'a job on a pipeline',
      '/v2/jobs',
      (id: Record<string, string>) => ({ name: uniqueName('j'), pipeline_id: id.pipeline }),
    ],
    [
      'a pipeline in a project',
      '/v2/pipelines',
      (id: Record<string, string>) => ({ name: uniqueName('p'), project_id: id.project, dag: dag(mine.connector!) }),
    ],
    [
      'a pipeline reading a connector',
      '/v2/pipelines',
      (id: Record<string, string>) => ({
        name: uniqueName('p'),
        dag: dag(id.connector ?? 'con_01J0000000000000000000000Z'),
      }),
    ],
  ])('a body naming another tenant’s resource: %s', async (_what, path, body) => {
    const foreign = await call<Pipeline>(stack, 'POST', path, { key: attackerKey, body: body(victim) });
    const missing = await call<Pipeline>(stack, 'POST', path, {
      key: attackerKey,
      body: body({ ...MISSING, connector: 'con_01J0000000000000000000000Z' }),
    });
    // What tells the two apart, if anything: the status, the problem, or a saved pipeline's validation.
    const verdict = (res: ApiResponse<Pipeline>) =>
      comparable({ ...res, body: res.status === 201 ? res.body.validation.errors : res.body });
    expect(verdict(foreign)).toEqual(verdict(missing));
    // Refused, or (a pipeline, which may be saved invalid) saved without reaching the victim's connector.
    if (foreign.status === 201) expect(foreign.body).toMatchObject({ status: 'invalid' });
    else expect(foreign.status).toBe(422);
  });

  it('logs filtered by a node of another run are an empty page', async () => {
    const res = await get(`/v2/jobs/${mine.job}/runs/${mine.run}/logs?node_id=one`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: [], next_cursor: null });
  });
});

describe('finding 11: Prometheus metrics only on the metrics port', () => {
  it('the API port has no /metrics; /healthz and /readyz stay there', async () => {
    const credentials: Record<string, string>[] = [
      {},
      { 'x-api-key': attackerKey },
      { 'x-api-key': stack.bootstrapKey },
    ];
    for (const headers of credentials) {
      const res = await fetch(`${stack.baseUrl}/metrics`, { headers });
      expect(res.status).toBe(404);
      expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(await res.text()).not.toMatch(/http_request_duration_seconds/);
    }
    expect((await fetch(`${stack.baseUrl}/healthz`)).status).toBe(200);
    expect((await fetch(`${stack.baseUrl}/readyz`)).status).toBe(200);
  });

  it('the metrics port serves Prometheus text with the API’s series, and health and readiness', async () => {
    const gateway = stack.processes.find((p) => p.name === 'gateway')!;
    expect(gateway.metricsPort).not.toBe(gateway.port);
    const base = `http://127.0.0.1:${gateway.metricsPort}`;
    await waitFor(
      async () => {
        const res = await fetch(`${base}/metrics`);
        expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
        return parsePrometheusText(await res.text()).some(
          (s) => s.name === 'http_request_duration_seconds_count' && s.labels.route === '/v2/projects',
        );
      },
      { what: 'the API requests to be counted', timeoutMs: 20_000 },
    );
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    expect(await (await fetch(`${base}/readyz`)).json()).toEqual({ status: 'ok', checks: { db: 'ok', redis: 'ok' } });
    expect((await fetch(`${base}/v2/projects`)).status).toBe(404);
  });
});
