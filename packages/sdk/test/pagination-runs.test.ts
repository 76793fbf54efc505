// Pagination, waitForRun and the live log stream, against a real local HTTP server.
import { ConduitTimeoutError, createConduitClient } from '../src/index.js';
import { json, project, startServer, type TestServer } from './http-server.js';

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

function run(id: string, status: string): Record<string, unknown> {
  return {
    id,
    job_id: 'job_1',
    pipeline_id: 'pln_1',
    pipeline_version: 1,
    status,
    trigger: 'manual',
    parameters: {},
    attempt: 1,
    queued_at: '2026-11-22T10:15:00.000Z',
    started_at: null,
    finished_at: null,
    duration_ms: null,
    error: null,
    nodes: [],
    stats: { rows_read: 0, rows_written: 0 },
  };
}

describe('pagination', () => {
  const ids = ['prj_5', 'prj_4', 'prj_3', 'prj_2', 'prj_1'];
  const pages = (req: { url: string }) => {
    const url = new URL(req.url, 'http://x');
    const limit = Number(url.searchParams.get('limit') ?? 50);
    const start = Number(url.searchParams.get('cursor') ?? 0);
    const next = start + limit < ids.length ? String(start + limit) : null;
    return { data: ids.slice(start, start + limit).map(project), next_cursor: next };
  };

  it('walks every page with for await, passing each next_cursor back', async () => {
    server = await startServer((req, res) => json(res, 200, pages(req)));
    const client = createConduitClient({ baseUrl: server.baseUrl, apiKey: 'k' });
    const seen: string[] = [];
    for await (const p of client.projects.list({ pageSize: 2 })) seen.push(p.id);
    expect(seen).toEqual(ids);
    expect(server.requests.map((r) => r.url)).toEqual([
      '/v2/projects?limit=2',
      '/v2/projects?cursor=2&limit=2',
      '/v2/projects?cursor=4&limit=2',
    ]);
  });

  it('fetches no page beyond the item the loop stopped at', async () => {
    server = await startServer((req, res) => json(res, 200, pages(req)));
    const client = createConduitClient({ baseUrl: server.baseUrl, apiKey: 'k' });
    expect((await client.projects.list({ pageSize: 2 }).toArray(3)).map((p) => p.id)).toEqual([
      'prj_5',
      'prj_4',
      'prj_3',
    ]);
    expect(server.requests).toHaveLength(2);
  });
});

describe('waitForRun', () => {
  it('polls the run until it has ended, reporting every state', async () => {
    const states = ['queued', 'running', 'running', 'succeeded'];
    let calls = 0;
    server = await startServer((_req, res) => json(res, 200, run('run_1', states[Math.min(calls++, 3)]!)));
    const client = createConduitClient({ baseUrl: server.baseUrl, apiKey: 'k' });
    const seen: string[] = [];
    const done = await client.waitForRun('run_1', {
      jobId: 'job_1',
      intervalMs: 10,
      onUpdate: (r) => seen.push(r.status),
    });
    expect(done.status).toBe('succeeded');
    expect(seen).toEqual(states);
    expect(new Set(server.requests.map((r) => r.url))).toEqual(new Set(['/v2/jobs/job_1/runs/run_1']));
  });

  it("finds the run's job when only the run id is given", async () => {
    server = await startServer((req, res) => {
      if (req.url.startsWith('/v2/jobs?'))
        return json(res, 200, { data: [{ id: 'job_0' }, { id: 'job_1' }], next_cursor: null });
      if (req.url.startsWith('/v2/jobs/job_0/runs?'))
        return json(res, 200, { data: [run('run_0', 'failed')], next_cursor: null });
      if (req.url.startsWith('/v2/jobs/job_1/runs?'))
        return json(res, 200, { data: [run('run_1', 'running')], next_cursor: null });
      return json(res, 200, run('run_1', 'failed'));
    });
    const client = createConduitClient({ baseUrl: server.baseUrl, apiKey: 'k' });
    await expect(client.waitForRun('run_1', { intervalMs: 10 })).resolves.toMatchObject({ status: 'failed' });
    expect(server.requests.at(-1)!.url).toBe('/v2/jobs/job_1/runs/run_1');
  });

  it('throws a ConduitTimeoutError holding the last state when the run outlasts timeoutMs', async () => {
    server = await startServer((_req, res) => json(res, 200, run('run_1', 'running')));
    const client = createConduitClient({ baseUrl: server.baseUrl, apiKey: 'k' });
    const err = await client
      .waitForRun('run_1', { jobId: 'job_1', timeoutMs: 100, intervalMs: 20 })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConduitTimeoutError);
    expect(err).toMatchObject({ last: { status: 'running' } });
  });
});

describe('log streaming', () => {
  const line = (seq: number) => ({
    seq,
    ts: '2026-11-22T10:15:01.000Z',
    level: 'info',
    node_id: null,
    message: `line ${seq}`,
  });

  it('reads the event stream and resumes a dropped one with Last-Event-ID', async () => {
    server = await startServer((req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      if (req.headers['last-event-id'] === undefined) {
        // Two lines, a comment, then the connection ends without `event: end`.
        res.end(
          `id: 1\ndata: ${JSON.stringify(line(1))}\n\n: keep-alive\n\nid: 2\r\ndata: ${JSON.stringify(line(2))}\r\n\r\n`,
        );
      } else {
        res.end(`id: 3\ndata: ${JSON.stringify(line(3))}\n\nevent: end\ndata: {}\n\n`);
      }
    });
    const client = createConduitClient({ baseUrl: server.baseUrl, apiKey: 'k' });
    const seqs: number[] = [];
    for await (const l of client.runs.streamLogs('run_1', { jobId: 'job_1' })) seqs.push(l.seq);
    expect(seqs).toEqual([1, 2, 3]);
    expect(server.requests.map((r) => [r.headers.accept, r.headers['last-event-id']])).toEqual([
      ['text/event-stream', undefined],
      ['text/event-stream', '2'],
    ]);
  });

  it('ends with the problem when the stream sends event: error', async () => {
    server = await startServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(
        `id: 1\ndata: ${JSON.stringify(line(1))}\n\nevent: error\ndata: ${JSON.stringify({ type: '/problems/unauthenticated', title: 'Unauthenticated', status: 401, code: 'unauthenticated', detail: 'the key was revoked', instance: '/x', request_id: 'req_1' })}\n\n`,
      );
    });
    const client = createConduitClient({ baseUrl: server.baseUrl, apiKey: 'k' });
    const seqs: number[] = [];
    const err = await (async () => {
      for await (const l of client.runs.streamLogs('run_1', { jobId: 'job_1' })) seqs.push(l.seq);
    })().catch((e: unknown) => e);
    expect(seqs).toEqual([1]);
    expect(err).toMatchObject({ status: 401, code: 'unauthenticated', detail: 'the key was revoked' });
    expect(server.requests).toHaveLength(1);
  });
});
