import pg from 'pg';
import { dagNodes, linearDag, startStack, type Stack } from '@conduit/testing';
import type { Alert, Metrics, Page, Pipeline, RunLogLine } from '@conduit/contracts';
import { call, expectProblem } from './support/client.js';
import { create, createPipelineAndJob, triggerRun, uniqueName, waitFor, waitForRunEnd } from './support/helpers.js';
import { createTargetDatabase, type TargetDatabase } from './support/target-database.js';
import { parsePrometheusText, type PromSample } from './support/prometheus-text.js';

// Monitoring end to end (api.md, Resources > Monitoring): real runs through the gateway, executed against the stack's
// own PostgreSQL database; metrics, alerts and logs read back through the gateway.
let stack: Stack;
let targetDb: TargetDatabase;
let db: pg.Client;
let connectorId: string;
let goodJob: string;
let badJob: string;
let badPipeline: string;

const { source, transform, sink } = dagNodes(() => connectorId);
const goodDag = () => linearDag(source('extract', { table: 'mon_src' }), sink('load', 'mon_out'));
const badDag = () =>
  linearDag(
    source('extract', { table: 'mon_src' }),
    transform('clean', 'select no_such_column from extract'),
    sink('load', 'mon_out'),
  );

beforeAll(async () => {
  targetDb = await createTargetDatabase();
  stack = await startStack({ CONNECTOR_ALLOW_PRIVATE_NETWORKS: 'true' });
  db = new pg.Client({ connectionString: targetDb.url });
  await db.connect();
  await db.query(`create table mon_src (id integer primary key, name text not null)`);
  await db.query(`insert into mon_src select i, 'row ' || i from generate_series(1, 50) as i`);
  await db.query(`create table mon_out (id integer, name text)`);
  connectorId = (
    await create(stack, '/v2/connectors', { name: uniqueName('pg'), type: 'postgres', config: targetDb.config() })
  ).id;
  goodJob = (await createPipelineAndJob(stack, goodDag())).jobId;
  const bad = await createPipelineAndJob(stack, badDag());
  badJob = bad.jobId;
  badPipeline = bad.pipelineId;
}, 90_000);

afterAll(async () => {
  await db?.end();
  await stack?.stop();
  await targetDb?.drop();
});

/** Triggers a run of the job and waits for its end; answers the run id and its final status. */
async function runToEnd(jobId: string): Promise<{ id: string; status: string }> {
  const run = await triggerRun(stack, jobId);
  const done = await waitForRunEnd(stack, jobId, run.id, 60_000);
  return { id: run.id, status: done.status };
}

async function getMetrics(query: string): Promise<Metrics> {
  const res = await call<Metrics>(stack, 'GET', `/v2/metrics${query}`);
  if (res.status !== 200) throw new Error(`GET /v2/metrics${query} answered ${res.status}: ${res.text}`);
  return res.body;
}

async function alertsOf(query: string): Promise<Alert[]> {
  const res = await call<Page<Alert>>(stack, 'GET', `/v2/alerts${query}`);
  if (res.status !== 200) throw new Error(`GET /v2/alerts answered ${res.status}: ${res.text}`);
  return res.body.data;
}

async function allLogs(jobId: string, runId: string, limit: number): Promise<RunLogLine[]> {
  const lines: RunLogLine[] = [];
  let cursor: string | null = null;
  do {
    const res: { status: number; text: string; body: Page<RunLogLine> } = await call<Page<RunLogLine>>(
      stack,
      'GET',
      `/v2/jobs/${jobId}/runs/${runId}/logs?limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
    );
    if (res.status !== 200) throw new Error(`logs answered ${res.status}: ${res.text}`);
    expect(res.body.data.length).toBeLessThanOrEqual(limit);
    lines.push(...res.body.data);
    cursor = res.body.next_cursor;
  } while (cursor);
  return lines;
}

interface SseEvent {
  id?: string;
  event?: string;
  data: string;
}

/** Opens the live log stream and reads events until `event: end` (or the deadline). */
async function readStream(
  jobId: string,
  runId: string,
  headers: Record<string, string> = {},
  timeoutMs = 30_000,
  query = '',
): Promise<{ status: number; contentType: string | null; requestId: string | null; events: SseEvent[] }> {
  const res = await fetch(`${stack.baseUrl}/v2/jobs/${jobId}/runs/${runId}/logs${query}`, {
    headers: { 'x-api-key': stack.bootstrapKey, accept: 'text/event-stream', ...headers },
    signal: AbortSignal.timeout(timeoutMs),
  });
  const events: SseEvent[] = [];
  if (!res.body) throw new Error('no body');
  const decoder = new TextDecoder();
  let buffer = '';
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    buffer += decoder.decode(chunk, { stream: true });
    let at: number;
    while ((at = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, at);
      buffer = buffer.slice(at + 2);
      const event: SseEvent = { data: '' };
      for (const line of block.split('\n')) {
        const [field, ...rest] = line.split(': ');
        const value = rest.join(': ');
        if (field === 'id') event.id = value;
        else if (field === 'event') event.event = value;
        else if (field === 'data') event.data += value;
      }
      events.push(event);
    }
    if (events.some((e) => e.event === 'end')) break;
  }
  return {
    status: res.status,
    contentType: res.headers.get('content-type'),
    requestId: res.headers.get('x-request-id'),
    events,
  };
}

describe('monitoring through the gateway', () => {
  it('counts 3 successes and 2 failures with a 0.6 success rate, and since=1s leaves them out', async () => {
    const outcomes = [];
    for (const jobId of [goodJob, badJob, goodJob, badJob, goodJob]) outcomes.push((await runToEnd(jobId)).status);
    expect(outcomes).toEqual(['succeeded', 'failed', 'succeeded', 'failed', 'succeeded']);

    const m = await waitFor(
      async () => {
        const got = await getMetrics('');
        return got.runs.succeeded + got.runs.failed === 5;
      },
      { what: 'monitoring to record the 5 runs', timeoutMs: 20_000 },
    ).then(() => getMetrics(''));
    expect(m).toMatchObject({
      job_id: null,
      since: '24h',
      runs: { total: 5, queued: 0, running: 0, succeeded: 3, failed: 2, canceled: 0 },
      success_rate: 0.6,
    });
    // Every run read the 50 source rows (a failed one before its transform failed); only the successes wrote them.
    expect(m.rows.read).toBe(250);
    expect(m.rows.written).toBe(150);
    for (const key of ['avg', 'p50', 'p95', 'max'] as const) expect(m.duration_ms[key]).toEqual(expect.any(Number));
    expect(m.series.reduce((sum, b) => sum + b.succeeded, 0)).toBe(3);
    expect(m.series.reduce((sum, b) => sum + b.failed, 0)).toBe(2);

    const perJob = await getMetrics(`?job_id=${badJob}&since=1h`);
    expect(perJob).toMatchObject({ job_id: badJob, since: '1h', runs: { total: 2, failed: 2 }, success_rate: 0 });

    // A fixed wait on purpose: the one-second window must move past the runs.
    await new Promise((r) => setTimeout(r, 1500));
    const recent = await getMetrics('?since=1s');
    expect(recent.runs.total).toBe(0);
    expect(recent.success_rate).toBeNull();
  });

  it('opens an alert on the failing job, escalates it at three failures in a row and resolves it on the next success', async () => {
    const open = await waitFor(async () => (await alertsOf(`?job_id=${badJob}`))[0]?.occurrences === 2, {
      what: 'the alert to count both failures',
      timeoutMs: 20_000,
    }).then(() => alertsOf(`?job_id=${badJob}`));
    expect(open).toHaveLength(1);
    expect(open[0]).toMatchObject({
      job_id: badJob,
      rule: 'run_failed',
      severity: 'warning',
      status: 'open',
      occurrences: 2,
      resolved_at: null,
    });
    expect(await alertsOf(`?job_id=${goodJob}`)).toEqual([]);

    expect((await runToEnd(badJob)).status).toBe('failed');
    await waitFor(async () => (await alertsOf('?severity=critical'))[0]?.occurrences === 3, {
      what: 'the alert to turn critical',
      timeoutMs: 20_000,
    });
    expect((await alertsOf('?status=open'))[0]).toMatchObject({
      id: open[0]!.id,
      rule: 'consecutive_failures',
      severity: 'critical',
    });

    // Fix the pipeline: the job's next run succeeds and resolves the alert.
    const fixed = await call<Pipeline>(stack, 'PUT', `/v2/pipelines/${badPipeline}`, {
      body: { name: uniqueName('fixed'), dag: goodDag() },
    });
    expect(fixed.status).toBe(200);
    expect((await runToEnd(badJob)).status).toBe('succeeded');
    await waitFor(async () => (await alertsOf('?status=resolved')).length === 1, {
      what: 'the alert to resolve',
      timeoutMs: 20_000,
    });
    const [resolved] = await alertsOf(`?job_id=${badJob}`);
    expect(resolved).toMatchObject({ id: open[0]!.id, status: 'resolved', severity: 'critical', occurrences: 3 });
    expect(resolved!.resolved_at).toEqual(expect.any(String));
    expect(await alertsOf('?status=open')).toEqual([]);
    expectProblem(await call<Page<Alert>>(stack, 'GET', '/v2/alerts?status=closed'), 400, 'invalid_parameter');
  });

  it('pages a run’s logs in order, filters them, streams them live, and resumes after Last-Event-ID', async () => {
    const run = await triggerRun(stack, goodJob);
    // Opened right after the trigger: the stream follows the run while it executes, until it has ended.
    const live = await readStream(goodJob, run.id);
    expect(live.status).toBe(200);
    expect(live.contentType).toMatch(/^text\/event-stream/);
    expect(live.requestId).toEqual(expect.any(String));
    expect(live.events.at(-1)?.event).toBe('end');
    const streamed = live.events
      .filter((e) => e.event === undefined)
      .map((e) => ({ id: Number(e.id), line: JSON.parse(e.data) as RunLogLine }));
    expect(streamed.every((e) => e.id === e.line.seq)).toBe(true);

    const paged = await allLogs(goodJob, run.id, 2);
    expect(paged.length).toBeGreaterThanOrEqual(4);
    expect(paged.map((l) => l.seq)).toEqual([...paged.map((l) => l.seq)].sort((a, b) => a - b));
    expect(new Set(paged.map((l) => l.seq)).size).toBe(paged.length);
    expect(paged[0]!.message).toMatch(/^run started/);
    expect(paged.at(-1)!.message).toMatch(/^run succeeded/);
    expect(streamed.map((e) => e.line)).toEqual(paged);

    const extract = await call<Page<RunLogLine>>(
      stack,
      'GET',
      `/v2/jobs/${goodJob}/runs/${run.id}/logs?node_id=extract&level=info`,
    );
    expect(extract.body.data.length).toBeGreaterThan(0);
    expect(extract.body.data.every((l) => l.node_id === 'extract' && l.level === 'info')).toBe(true);

    const middle = paged[1]!.seq;
    const resumed = await readStream(goodJob, run.id, { 'last-event-id': String(middle) });
    expect(resumed.events.filter((e) => e.event === undefined).map((e) => JSON.parse(e.data) as RunLogLine)).toEqual(
      paged.slice(2),
    );

    expectProblem(
      await call<Page<RunLogLine>>(stack, 'GET', `/v2/jobs/${badJob}/runs/${run.id}/logs`),
      404,
      'not_found',
    );
    expectProblem(
      await call(stack, 'GET', `/v2/jobs/${goodJob}/runs/run_01JD3V6Y9ZQ8W1S3X5C7E9G2HK/logs`),
      404,
      'not_found',
    );
    expectProblem(await call(stack, 'GET', `/v2/jobs/${goodJob}/runs/not-a-run/logs`), 404, 'not_found');
    expectProblem(
      await call<Page<RunLogLine>>(stack, 'GET', `/v2/jobs/${goodJob}/runs/${run.id}/logs?level=loud`),
      400,
      'invalid_parameter',
    );
  });

  it('streams a filter’s lines that come after more than 1,000 lines it leaves out, and ends with the run', async () => {
    const run = await runToEnd(goodJob);
    // A second attempt's lines stored as the executor's would be: 1,200 of another node, then three of node `late`.
    const platform = new pg.Client({ connectionString: stack.databaseUrl });
    await platform.connect();
    try {
      await platform.query(
        `INSERT INTO monitoring.run_logs (run_id, seq, tenant_id, job_id, attempt, n, ts, level, node_id, message)
         SELECT l.run_id, 1000000000 + n + 1, l.tenant_id, l.job_id, 2, n, now(),
                CASE WHEN n >= 1200 THEN 'error' ELSE 'info' END, CASE WHEN n >= 1200 THEN 'late' ELSE 'noise' END,
                'seeded line ' || n
         FROM (SELECT run_id, tenant_id, job_id FROM monitoring.run_logs WHERE run_id = $1 LIMIT 1) l,
              generate_series(0, 1202) AS n`,
        [run.id],
      );
    } finally {
      await platform.end();
    }
    const late = [1200, 1201, 1202].map((n) => 1_000_000_000 + n + 1);
    const listed = await call<Page<RunLogLine>>(stack, 'GET', `/v2/jobs/${goodJob}/runs/${run.id}/logs?node_id=late`);
    expect(listed.body).toEqual({
      data: late.map((seq): unknown => expect.objectContaining({ seq })),
      next_cursor: null,
    });

    for (const query of ['?node_id=late', '?level=error&node_id=late']) {
      const stream = await readStream(goodJob, run.id, {}, 15_000, query);
      expect(stream.status).toBe(200);
      expect(stream.events.at(-1)?.event).toBe('end');
      const lines = stream.events.filter((e) => e.event === undefined).map((e) => JSON.parse(e.data) as RunLogLine);
      expect(lines).toEqual(listed.body.data);
    }
    // Nothing matches at all: the stream of a finished run still ends.
    const none = await readStream(goodJob, run.id, {}, 15_000, '?node_id=nobody');
    expect(none.events).toEqual([{ event: 'end', data: '{}' }]);
  });

  it('answers 400 for a since outside the grammar', async () => {
    for (const since of ['0h', '1y', '-5m', '5', 'h', '10000000d']) {
      expectProblem(
        await call<Metrics>(stack, 'GET', `/v2/metrics?since=${encodeURIComponent(since)}`),
        400,
        'invalid_parameter',
      );
    }
  });

  it('serves Prometheus text on /metrics of every service (the gateway on its metrics port), with the named series', async () => {
    const scraped = new Map<string, PromSample[]>();
    for (const p of stack.processes) {
      const res = await fetch(`http://127.0.0.1:${p.metricsPort}/metrics`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
      const samples = parsePrometheusText(await res.text());
      expect(samples.some((s) => s.name === 'process_cpu_user_seconds_total')).toBe(true);
      scraped.set(p.name, samples);
    }
    const has = (service: string, name: string, labels: Record<string, string> = {}) =>
      (scraped.get(service) ?? []).some(
        (s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v),
      );

    expect(
      has('gateway', 'http_request_duration_seconds_bucket', { method: 'GET', route: '/v2/metrics', status: '200' }),
    ).toBe(true);
    expect(
      has('gateway', 'http_request_duration_seconds_count', { route: '/v2/jobs/:job_id/runs/:run_id', status: '200' }),
    ).toBe(true);
    expect(
      has('gateway', 'rpc_request_duration_seconds_count', { pattern: 'monitoring.metrics.get', outcome: 'ok' }),
    ).toBe(true);
    expect(
      has('gateway', 'rpc_request_duration_seconds_count', { pattern: 'scheduler.runs.trigger', outcome: 'ok' }),
    ).toBe(true);
    expect(has('monitoring', 'conduit_runs_total', { status: 'succeeded' })).toBe(true);
    expect(has('monitoring', 'conduit_runs_total', { status: 'failed' })).toBe(true);
    expect(has('monitoring', 'bullmq_queue_jobs', { queue: 'runs', state: 'waiting' })).toBe(true);
    expect(has('monitoring', 'bullmq_queue_jobs', { queue: 'logs', state: 'completed' })).toBe(true);
    expect(has('monitoring', 'bullmq_job_duration_seconds_count', { queue: 'events.monitoring' })).toBe(true);
    expect(has('monitoring', 'bullmq_job_duration_seconds_count', { queue: 'logs' })).toBe(true);
  });
});
