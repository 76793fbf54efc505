// Live log streams are bounded per tenant: each polls monitoring for as long as its run lasts, so one tenant's
// streams must not take monitoring from the others (an attacker's probe opened ~2,000 and slowed every tenant's log
// reads a hundredfold).
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { map, timer } from 'rxjs';
import { newId } from '@conduit/service-kit';
import { type GatewayApp, startGatewayApp } from './gateway-app.js';

const PER_TENANT = 3;
let gateway: GatewayApp;
/** Runs whose stub says they have ended: their streams send `event: end`. */
const ended = new Set<string>();
/** Runs whose first poll the stub answers late. */
const slow = new Set<string>();
const streams: AbortController[] = [];

interface TailAsk {
  run_id: string;
  after_seq: number;
  level?: string;
  node_id?: string;
}
interface Line {
  seq: number;
  ts: string;
  level: 'info' | 'warn' | 'error';
  node_id: string | null;
  message: string;
}
/** Runs whose stub answers as monitoring does, from these lines. */
const logs = new Map<string, (ask: TailAsk) => unknown>();

/**
 * Monitoring's tail over `total` lines (seq 1..total), of a run that has ended once `finished`: a batch of 1,000
 * lines looked at, those matching the filter answered, and the last seq looked at.
 */
function tailOf(total: number, lineOf: (seq: number) => Line, finished: () => boolean) {
  return (ask: TailAsk) => {
    const last = Math.min(ask.after_seq + 1000, total);
    const data: Line[] = [];
    for (let seq = ask.after_seq + 1; seq <= last; seq++) {
      const line = lineOf(seq);
      if ((!ask.level || line.level === ask.level) && (!ask.node_id || line.node_id === ask.node_id)) data.push(line);
    }
    return { data, scanned_seq: last, run_finished: finished() && last === total };
  };
}

function line(seq: number, nodeId: string, message = `line ${seq}`): Line {
  return { seq, ts: new Date(0).toISOString(), level: 'info', node_id: nodeId, message };
}

function tailsOf(runId: string): number[] {
  return gateway.calls
    .filter((c) => c.pattern === 'monitoring.logs.tail' && (c.data as TailAsk).run_id === runId)
    .map((c) => (c.data as TailAsk).after_seq);
}

beforeAll(async () => {
  gateway = await startGatewayApp({
    env: { LOG_STREAMS_PER_TENANT: String(PER_TENANT) },
    services: {
      'monitoring.logs.tail': (data) => {
        const ask = data as TailAsk;
        const runId = ask.run_id;
        const log = logs.get(runId);
        if (log) return { ok: true, data: log(ask) };
        const answer = { ok: true, data: { data: [], scanned_seq: ask.after_seq, run_finished: ended.has(runId) } };
        return slow.has(runId) ? timer(300).pipe(map(() => answer)) : answer;
      },
    },
  });
});

afterAll(async () => {
  for (const stream of streams) stream.abort();
  await gateway?.stop();
});

/** Opens a live stream of a new run's logs with `key`: its answer (the body is left open) and the run's id. */
async function openStream(key: string, runId = newId('run')): Promise<{ res: Response; runId: string }> {
  const controller = new AbortController();
  streams.push(controller);
  const res = await fetch(`${gateway.url}/v2/jobs/${newId('job')}/runs/${runId}/logs`, {
    headers: { 'x-api-key': key, accept: 'text/event-stream' },
    signal: controller.signal,
  });
  return { res, runId };
}

describe('live log streams', () => {
  it('are bounded per tenant: one more is a 429 with Retry-After, another tenant still gets its own', async () => {
    const open = [];
    for (let i = 0; i < PER_TENANT; i++) open.push(await openStream(gateway.key));
    expect(open.map(({ res }) => res.status)).toEqual(Array(PER_TENANT).fill(200));

    const refused = await openStream(gateway.key);
    expect(refused.res.status).toBe(429);
    expect(refused.res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(refused.res.headers.get('retry-after')).toBe('5');
    expect(await refused.res.json()).toMatchObject({
      status: 429,
      code: 'rate_limited',
      detail: `more than ${PER_TENANT} live log streams open at once for this tenant`,
    });

    const other = await openStream(await gateway.newTenantKey());
    expect(other.res.status).toBe(200);

    // A stream whose run ends gives its place back.
    ended.add(open[0]!.runId);
    expect(await open[0]!.res.text()).toContain('event: end');
    const next = await openStream(gateway.key);
    expect(next.res.status).toBe(200);

    // So does one its client closes.
    streams.at(-1)!.abort();
    let again = await openStream(gateway.key);
    // The close reaches the gateway a moment after the client's abort: wait for that, not for a fixed time.
    const deadline = Date.now() + 5_000;
    while (again.res.status === 429 && Date.now() < deadline) {
      await again.res.body?.cancel();
      await new Promise((resolve) => setTimeout(resolve, 20));
      again = await openStream(gateway.key);
    }
    expect(again.res.status).toBe(200);
  });

  it('give the place back of a client gone before its stream opened (during the first poll)', async () => {
    const key = await gateway.newTenantKey();
    const runId = newId('run');
    slow.add(runId);
    const controller = new AbortController();
    const gone = fetch(`${gateway.url}/v2/jobs/${newId('job')}/runs/${runId}/logs`, {
      headers: { 'x-api-key': key, accept: 'text/event-stream' },
      signal: controller.signal,
    }).catch(() => undefined);
    // Aborted once the gateway is polling for it, before the stub answers.
    const asked = Date.now() + 5_000;
    while (!gateway.calls.some((c) => (c.data as { run_id?: string }).run_id === runId) && Date.now() < asked)
      await new Promise((resolve) => setTimeout(resolve, 10));
    controller.abort();
    await gone;
    // Every place of the tenant's comes free: the gone client's once its first poll is answered (not at its run's end).
    const opened: number[] = [];
    const deadline = Date.now() + 5_000;
    while (opened.length < PER_TENANT && Date.now() < deadline) {
      const { res } = await openStream(key);
      if (res.status === 200) opened.push(res.status);
      else {
        await res.body?.cancel();
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
    expect(opened).toEqual(Array(PER_TENANT).fill(200));
  });

  it('move past the lines a filter leaves out, send the matching ones once and in order, and end', async () => {
    const key = await gateway.newTenantKey();
    const runId = newId('run');
    // 3,500 lines: node t498's three after 3,000 of other nodes, then more of others.
    const matching = new Set([3001, 3002, 3003]);
    logs.set(
      runId,
      tailOf(
        3500,
        (seq) => line(seq, matching.has(seq) ? 't498' : `t${seq % 100}`),
        () => true,
      ),
    );
    const res = await fetch(`${gateway.url}/v2/jobs/${newId('job')}/runs/${runId}/logs?node_id=t498`, {
      headers: { 'x-api-key': key, accept: 'text/event-stream' },
      signal: AbortSignal.timeout(10_000),
    });
    expect(res.status).toBe(200);
    const body = await res.text();
    expect([...body.matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1]))).toEqual([3001, 3002, 3003]);
    expect(body.endsWith('event: end\ndata: {}\n\n')).toBe(true);
    // Each batch read once: every poll starts where the previous one stopped looking.
    expect(tailsOf(runId)).toEqual([0, 1000, 2000, 3000]);
  });

  it('do not poll for more while the client has not read what the socket holds', async () => {
    const key = await gateway.newTenantKey();
    const runId = newId('run');
    // A live run with lines for ever, 1,000 of 4 KB per answer.
    const message = 'x'.repeat(4096);
    logs.set(
      runId,
      tailOf(
        Number.MAX_SAFE_INTEGER,
        (seq) => line(seq, 'a', message),
        () => false,
      ),
    );
    const url = new URL(`${gateway.url}/v2/jobs/${newId('job')}/runs/${runId}/logs`);
    const req = httpRequest(url, { headers: { 'x-api-key': key, accept: 'text/event-stream' } });
    const res = await new Promise<IncomingMessage>((resolve, reject) => {
      req.on('response', resolve).on('error', reject).end();
    });
    try {
      expect(res.statusCode).toBe(200);
      // The client reads nothing: once the socket's buffers are full the gateway stops asking.
      res.pause();
      const settle = async () => {
        let previous = -1;
        for (let i = 0; i < 100; i++) {
          await new Promise((resolve) => setTimeout(resolve, 300));
          const count = tailsOf(runId).length;
          if (count === previous) return count;
          previous = count;
        }
        throw new Error('the stream kept polling');
      };
      const stalled = await settle();
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      expect(tailsOf(runId).length).toBe(stalled);
      // At most a few answers' worth sat in the buffers (not everything the run had).
      expect(stalled).toBeLessThan(100);
      // Once the client reads, it goes on.
      res.resume();
      const deadline = Date.now() + 5_000;
      while (tailsOf(runId).length <= stalled + 2 && Date.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 50));
      expect(tailsOf(runId).length).toBeGreaterThan(stalled + 2);
    } finally {
      req.destroy();
    }
  });
});

describe('Last-Event-ID', () => {
  const resume = async (lastEventId: string) => {
    const key = await gateway.newTenantKey();
    const runId = newId('run');
    logs.set(
      runId,
      tailOf(
        30,
        (seq) => line(seq, 'n'),
        () => true,
      ),
    );
    return fetch(`${gateway.url}/v2/jobs/${newId('job')}/runs/${runId}/logs`, {
      headers: { 'x-api-key': key, accept: 'text/event-stream', 'last-event-id': lastEventId },
      signal: AbortSignal.timeout(10_000),
    });
  };

  it('resumes after the seq it names', async () => {
    const res = await resume('27');
    const body = await res.text();
    expect([...body.matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1]))).toEqual([28, 29, 30]);
  });

  it.each(['0x10', '1e1', '+5', '010', '5.0', '-1', 'abc'])('%s, not a plain seq, is a 400', async (value) => {
    const res = await resume(value);
    expect(res.status).toBe(400);
    expect(((await res.json()) as { code: string }).code).toBe('invalid_parameter');
  });
});
