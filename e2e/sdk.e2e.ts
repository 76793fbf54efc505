// @conduit/sdk against the stack (issue 19 item 2): a whole flow, pagination, problems as ConduitApiError, the
// live log stream, retries that honour the gateway's Retry-After, one Idempotency-Key across a retried POST, and
// updates and deletes made conditional on the version the SDK answered (etagOf, ifMatch).
import { startStack, type Stack } from '@conduit/testing';
import {
  ConduitApiError,
  createConduitClient,
  etagOf,
  type ConduitClient,
  type RetryInfo,
  type RunLogLine,
} from '@conduit/sdk';
import { uniqueName } from './support/helpers.js';
import { createTargetDatabase, type TargetDatabase } from './support/target-database.js';

let stack: Stack;
let target: TargetDatabase;
let client: ConduitClient;

beforeAll(async () => {
  target = await createTargetDatabase();
  stack = await startStack({
    CONNECTOR_ALLOW_PRIVATE_NETWORKS: 'true',
    WEBHOOK_ALLOW_HTTP: 'true',
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
  });
  client = createConduitClient({ baseUrl: stack.baseUrl, apiKey: stack.bootstrapKey });
}, 90_000);

afterAll(async () => {
  await stack?.stop();
  await target?.drop();
});

it('runs a pipeline: create, trigger, stream its logs live, wait for its end', async () => {
  const project = await client.projects.create({ name: uniqueName('sdk') });
  const connector = await client.connectors.create({
    name: uniqueName('pg'),
    type: 'postgres',
    project_id: project.id,
    config: { ...target.config(), host: '127.0.0.1', database: target.name, user: 'postgres' },
  });
  expect(await client.connectors.test(connector.id)).toMatchObject({ ok: true });
  const pipeline = await client.pipelines.create({
    name: 'numbers',
    project_id: project.id,
    dag: {
      nodes: [
        {
          id: 'seed',
          type: 'sql',
          config: {
            connector_id: connector.id,
            sql: 'create table numbers as select g as n from generate_series(1, 10) as g',
          },
        },
        { id: 'numbers', type: 'source', config: { connector_id: connector.id, table: 'numbers' } },
        { id: 'odd', type: 'transform', config: { sql: 'select n from numbers where n % 2 = 1' } },
        { id: 'out', type: 'sink', config: { connector_id: connector.id, table: 'odd_numbers', mode: 'overwrite' } },
      ],
      edges: [
        { from: 'seed', to: 'numbers' },
        { from: 'numbers', to: 'odd' },
        { from: 'odd', to: 'out' },
      ],
    },
  });
  expect(pipeline.status).toBe('valid');
  const job = await client.jobs.create({ name: uniqueName('job'), pipeline_id: pipeline.id });
  const queued = await client.jobs.trigger(job.id);

  // Only the run id: the SDK finds its job.
  const streamed: RunLogLine[] = [];
  const [run] = await Promise.all([
    client.waitForRun(queued.id, { timeoutMs: 60_000, intervalMs: 200 }),
    (async () => {
      for await (const line of client.runs.streamLogs(queued.id)) streamed.push(line);
    })(),
  ]);
  expect(run.status).toBe('succeeded');
  expect(run.nodes.find((n) => n.id === 'odd')).toMatchObject({ rows_in: 10, rows_out: 5 });
  expect(streamed.length).toBeGreaterThan(0);
  expect(streamed.map((l) => l.seq)).toEqual(streamed.map((_l, i) => i + 1));
  // The stream (it ended with the run) and the paged log hold the same lines.
  expect(await client.runs.logs(run.id, { jobId: job.id, pageSize: 2 }).toArray()).toEqual(streamed);
  // Resuming after a line (Last-Event-ID) answers only what follows it.
  const resumed: number[] = [];
  for await (const line of client.runs.streamLogs(run.id, { jobId: job.id, afterSeq: 2 })) resumed.push(line.seq);
  expect(resumed).toEqual(streamed.slice(2).map((l) => l.seq));
}, 90_000);

it('iterates every page with for await', async () => {
  const names = await Promise.all(
    [1, 2, 3, 4, 5].map(async (i) => (await client.projects.create({ name: uniqueName(`page${i}`) })).name),
  );
  const seen: string[] = [];
  for await (const project of client.projects.list({ pageSize: 2 })) seen.push(project.name);
  expect(seen).toEqual(expect.arrayContaining(names));
  expect(new Set(seen).size).toBe(seen.length);
});

it('throws the problem document as a ConduitApiError, every field at fault listed', async () => {
  const pipeline = (await client.pipelines.list().toArray(1))[0]!;
  const err = await client.jobs
    .create({ name: uniqueName('job'), pipeline_id: pipeline.id, schedule: '0 2 * * * *', timezone: 'Mars/Olympus' })
    .catch((e: unknown) => e);
  expect(err).toBeInstanceOf(ConduitApiError);
  const problem = err as ConduitApiError;
  expect(problem).toMatchObject({
    status: 422,
    code: 'validation_failed',
    title: expect.any(String),
    detail: expect.any(String),
    requestId: expect.stringMatching(/^req_/),
  });
  expect(problem.errors.map((e) => e.path).sort()).toEqual(['schedule', 'timezone']);
});

it("waits out the gateway's 429 by its Retry-After and succeeds", async () => {
  const created = await client.raw.POST('/v2/api-keys', {
    body: { name: uniqueName('slow'), scopes: ['read'], rate_limit_per_minute: 60 },
  });
  if (!created.data) throw new Error(JSON.stringify(created.error));
  const retries: RetryInfo[] = [];
  const limited = createConduitClient({
    baseUrl: stack.baseUrl,
    apiKey: created.data.key,
    onRetry: (info) => retries.push(info),
  });
  // A burst of the full limit, then one request a second: the 61st is answered 429 with Retry-After.
  const answers = await Promise.all(
    Array.from({ length: 63 }, () => limited.projects.list({ pageSize: 1 }).toArray(1)),
  );
  expect(answers).toHaveLength(63);
  expect(retries.length).toBeGreaterThan(0);
  expect(retries.every((r) => r.status === 429 && r.delayMs >= 1000 && r.delayMs <= 1100 * 3)).toBe(true);
}, 60_000);

it('sends a retried POST with the same Idempotency-Key: a lost answer does not make a second project', async () => {
  const name = uniqueName('once');
  const keys: string[] = [];
  let dropped = false;
  const lossy = createConduitClient({
    baseUrl: stack.baseUrl,
    apiKey: stack.bootstrapKey,
    retry: { baseDelayMs: 10 },
    // The first answer is lost on the way back, after the gateway made the project.
    fetch: async (input, init) => {
      const request = new Request(input, init);
      keys.push(request.headers.get('idempotency-key') ?? '');
      const response = await fetch(request);
      if (!dropped) {
        dropped = true;
        await response.body?.cancel();
        throw new TypeError('fetch failed: socket hang up');
      }
      return response;
    },
  });
  const project = await lossy.projects.create({ name });
  expect(keys).toHaveLength(2);
  expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/);
  expect(keys[1]).toBe(keys[0]);
  expect(
    (await client.projects.list({ pageSize: 200 }).toArray()).filter((p) => p.name === name).map((p) => p.id),
  ).toEqual([project.id]);
});

/** The ConduitApiError a call threw (a failure of the test when it resolved). */
async function apiErrorOf(call: Promise<unknown>): Promise<ConduitApiError> {
  const outcome = await call.then(
    () => new Error('the call succeeded'),
    (e: unknown) => e,
  );
  expect(outcome).toBeInstanceOf(ConduitApiError);
  return outcome as ConduitApiError;
}

describe('versions: etagOf and ifMatch', () => {
  it('updates and deletes a project only at the version read; a stale one is 412 and changes nothing', async () => {
    const created = await client.projects.create({ name: uniqueName('versioned') });
    const read = await client.projects.get(created.id);
    const version = etagOf(read);
    expect(version).toMatch(/^(W\/)?"[^"]+"$/);
    expect(etagOf(created)).toBe(version);

    const renamed = await client.projects.update(created.id, { name: uniqueName('renamed') }, { ifMatch: version });
    expect(etagOf(renamed)).toEqual(expect.any(String));
    expect(etagOf(renamed)).not.toBe(version);

    // The version read before the rename is stale now: neither an update nor a delete goes through.
    const stale = await apiErrorOf(
      client.projects.update(created.id, { name: uniqueName('lost') }, { ifMatch: version }),
    );
    expect(stale).toMatchObject({ status: 412, code: 'precondition_failed' });
    expect(await apiErrorOf(client.projects.delete(created.id, { ifMatch: version }))).toMatchObject({ status: 412 });
    expect((await client.projects.get(created.id)).name).toBe(renamed.name);

    await client.projects.delete(created.id, { ifMatch: etagOf(renamed)! });
    expect(await apiErrorOf(client.projects.get(created.id))).toMatchObject({ status: 404 });
  });

  it('sends no If-Match without ifMatch, and `*` matches any version', async () => {
    const seen: (string | null)[] = [];
    const watched = createConduitClient({
      baseUrl: stack.baseUrl,
      apiKey: stack.bootstrapKey,
      fetch: async (input, init) => {
        const request = new Request(input, init);
        if (request.method !== 'GET' && request.method !== 'POST') seen.push(request.headers.get('if-match'));
        return fetch(request);
      },
    });
    const project = await watched.projects.create({ name: uniqueName('plain') });
    await watched.projects.update(project.id, { name: uniqueName('plain2') });
    await watched.projects.update(project.id, { name: uniqueName('plain3') }, { ifMatch: '*' });
    await watched.projects.delete(project.id);
    expect(seen).toEqual([null, '*', null]);
  });

  it('manages webhooks, their If-Match included, and reads metrics and alerts', async () => {
    // Nothing listens there, and no job event it names happens in this file: no delivery is made.
    const hook = await client.webhooks.create({
      url: 'http://127.0.0.1:9/conduit',
      events: ['job.failed'],
      secret: 'sdk-test-secret-0123456789',
    });
    const read = await client.webhooks.get(hook.id);
    expect(JSON.stringify(read)).not.toContain('sdk-test-secret');
    const version = etagOf(read)!;

    const patched = await client.webhooks.update(
      hook.id,
      { events: ['job.failed', 'job.completed'] },
      { ifMatch: version },
    );
    expect(patched.events).toEqual(['job.failed', 'job.completed']);
    expect(
      await apiErrorOf(client.webhooks.update(hook.id, { status: 'disabled' }, { ifMatch: version })),
    ).toMatchObject({
      status: 412,
      code: 'precondition_failed',
    });
    expect((await client.webhooks.list({ pageSize: 200 }).toArray()).map((w) => w.id)).toContain(hook.id);
    expect(await client.webhooks.deliveries(hook.id).toArray()).toEqual([]);

    expect(await apiErrorOf(client.webhooks.delete(hook.id, { ifMatch: version }))).toMatchObject({ status: 412 });
    await client.webhooks.delete(hook.id, { ifMatch: etagOf(patched)! });
    expect(await apiErrorOf(client.webhooks.get(hook.id))).toMatchObject({ status: 404 });

    const metrics = await client.monitoring.metrics({ since: '1h' });
    expect(metrics).toMatchObject({ since: '1h', runs: expect.objectContaining({ total: expect.any(Number) }) });
    expect(await client.monitoring.alerts({ status: 'open' }).toArray()).toEqual(expect.any(Array));
  });
});
