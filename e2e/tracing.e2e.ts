import { copyDag, createPipelineAndJob, triggerRun, waitFor, waitForRunEnd } from './support/helpers.js';
import { useTargetStack } from './support/target-stack.js';
import { call } from './support/client.js';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from './support/otlp-receiver.js';

// Tracing (operations.md, Tracing): every service its own process exporting OTLP/HTTP JSON to a receiver of this
// test's own; one triggered run must be one connected trace, from the gateway's request to the executor's nodes.
let receiver: OtlpReceiver;

const SERVER = 2;
const CLIENT = 3;

beforeAll(async () => {
  receiver = await startOtlpReceiver();
});

const target = useTargetStack({
  env: () =>
    Promise.resolve({
      RATE_LIMIT_PER_MINUTE: '100000',
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
      // Spans reach the receiver within 100 ms instead of the default 5 s.
      OTEL_BSP_SCHEDULE_DELAY: '100',
    }),
  prepare: async (db) => {
    await db.query('CREATE TABLE orders (id int PRIMARY KEY, amount numeric)');
    await db.query('INSERT INTO orders SELECT g, g * 1.5 FROM generate_series(1, 25) g');
    await db.query('CREATE TABLE orders_copy (id int PRIMARY KEY, amount numeric)');
  },
  timeoutMs: 60_000,
});

afterAll(async () => {
  await receiver?.close();
});

/** The spans of one trace once its parent links all resolve (spans of one trace arrive from six processes). */
async function connectedTrace(traceId: string, expected: (spans: ReceivedSpan[]) => boolean): Promise<ReceivedSpan[]> {
  let trace: ReceivedSpan[] = [];
  await waitFor(
    () => {
      trace = receiver.spans.filter((s) => s.traceId === traceId);
      const ids = new Set(trace.map((s) => s.spanId));
      return trace.every((s) => !s.parentSpanId || ids.has(s.parentSpanId)) && expected(trace);
    },
    { timeoutMs: 20_000, what: `trace ${traceId} connected` },
  );
  return trace;
}

describe('tracing', () => {
  it('makes one run one trace: gateway request, RPC, scheduler, executor run and nodes, pg and Redis calls', async () => {
    const { jobId } = await createPipelineAndJob(target.stack, copyDag(target.connectorId));
    const queued = await triggerRun(target.stack, jobId);
    const run = await waitForRunEnd(target.stack, jobId, queued.id);
    expect({ status: run.status, error: run.error }).toEqual({ status: 'succeeded', error: null });

    let runSpan: ReceivedSpan | undefined;
    await waitFor(() => (runSpan = receiver.spans.find((s) => s.name === `run ${run.id}`)) !== undefined, {
      timeoutMs: 20_000,
      what: 'the run span',
    });
    // The run.queued event, written under the trigger, reaches monitoring in it too (the webhook dispatcher is not
    // sent it: no webhook subscribes to it), the executor's reports reach the scheduler in it, and the run.succeeded
    // event they make reaches the webhook dispatcher in it.
    const trace = await connectedTrace(
      runSpan!.traceId,
      (spans) =>
        spans.filter((s) => s.name.startsWith('node ')).length === 2 &&
        spans.some((s) => s.service === 'monitoring' && s.name === 'job events.monitoring/run.queued') &&
        spans.some((s) => s.service === 'webhook-dispatcher' && s.name === 'job events.webhooks/run.succeeded') &&
        spans.some((s) => s.service === 'scheduler' && s.name === 'job events.scheduler/run.finished'),
    );

    // One root: the gateway's HTTP server span of the Trigger Run request.
    const roots = trace.filter((s) => !s.parentSpanId);
    expect(roots).toHaveLength(1);
    expect(roots[0]).toMatchObject({ service: 'gateway', kind: SERVER });
    expect(String(roots[0]!.attributes['http.route'] ?? roots[0]!.attributes['url.path'] ?? roots[0]!.name)).toMatch(
      /run/,
    );

    const byId = new Map(trace.map((s) => [s.spanId, s]));
    const parentOf = (s: ReceivedSpan) => (s.parentSpanId ? byId.get(s.parentSpanId) : undefined);

    // The RPC hop: the gateway's client span, the scheduler's server span as its child.
    const rpcServer = trace.find((s) => s.service === 'scheduler' && s.kind === SERVER && s.name.startsWith('rpc '));
    expect(rpcServer).toBeDefined();
    expect(parentOf(rpcServer!)).toMatchObject({ service: 'gateway', kind: CLIENT, name: rpcServer!.name });

    // The executor's run continues the trigger's trace; its nodes are its children, with their rows.
    expect(runSpan!.service).toBe('executor');
    expect(runSpan!.attributes['conduit.run.status']).toBe('succeeded');
    const nodes = trace.filter((s) => s.name.startsWith('node '));
    for (const node of nodes) expect(node.parentSpanId).toBe(runSpan!.spanId);
    expect(nodes.find((n) => n.name === 'node extract')?.attributes).toMatchObject({
      'conduit.node.type': 'source',
      'conduit.node.rows_out': 25,
    });
    expect(nodes.find((n) => n.name === 'node load')?.attributes).toMatchObject({
      'conduit.node.type': 'sink',
      'conduit.node.rows_in': 25,
    });

    // The executor's final report is applied by the scheduler in the run's trace, under the run's span.
    const finished = trace.find((s) => s.name === 'job events.scheduler/run.finished');
    expect(parentOf(finished!)).toMatchObject({ service: 'executor', name: `run ${run.id}` });

    // The instrumentations' spans are in the same trace: PostgreSQL (the scheduler's writes, the connectors' reads)
    // and Redis (the RPC entry, the queue job).
    const isPg = (s: ReceivedSpan) => s.attributes['db.system'] === 'postgresql' || s.name.startsWith('pg.');
    const isRedis = (s: ReceivedSpan) =>
      s.attributes['db.system'] === 'redis' || s.attributes['db.system.name'] === 'redis';
    expect(trace.filter((s) => s.service === 'scheduler' && isPg(s)).length).toBeGreaterThan(0);
    expect(trace.filter((s) => s.service === 'gateway' && isRedis(s)).length).toBeGreaterThan(0);
    // What spans hold: no statement text beyond its first word (pg), no command arguments (Redis: BullMQ's scripts
    // take whole job payloads), and no pg span at all in the executor, whose pg talks to tenants' databases.
    expect(trace.filter((s) => s.service === 'executor' && isPg(s))).toEqual([]);
    for (const span of trace.filter(isPg)) {
      for (const key of ['db.query.text', 'db.statement']) {
        if (span.attributes[key] !== undefined) expect(span.attributes[key]).toMatch(/^[A-Z]+$/);
      }
    }
    for (const span of trace.filter(isRedis)) {
      for (const key of ['db.query.text', 'db.statement']) {
        if (span.attributes[key] !== undefined) expect(span.attributes[key]).toMatch(/^[a-z]+$/i);
      }
    }
  });

  it('starts a new trace at the gateway whatever traceparent the client sends', async () => {
    const clientTraceId = 'c0ffee00c0ffee00c0ffee00c0ffee00';
    const res = await call(target.stack, 'GET', '/v2/projects?limit=1', {
      headers: { traceparent: `00-${clientTraceId}-00f067aa0ba902b7-01`, tracestate: 'evil=1' },
    });
    expect(res.status).toBe(200);
    let span: ReceivedSpan | undefined;
    await waitFor(
      () =>
        (span = receiver.spans.find(
          (s) =>
            s.service === 'gateway' && s.kind === SERVER && String(s.attributes['url.query'] ?? '').includes('limit=1'),
        )) !== undefined,
      { timeoutMs: 20_000, what: "the gateway's span of the request" },
    );
    expect(span!.traceId).not.toBe(clientTraceId);
    expect(span!.parentSpanId).toBeFalsy();
    expect(receiver.spans.filter((s) => s.traceId === clientTraceId)).toEqual([]);
  });
});
