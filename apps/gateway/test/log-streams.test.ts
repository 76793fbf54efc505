// Live log streams are bounded per tenant: each polls monitoring for as long as its run lasts, so one tenant's
// streams must not take monitoring from the others (an attacker's probe opened ~2,000 and slowed every tenant's log
// reads a hundredfold).
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

beforeAll(async () => {
  gateway = await startGatewayApp({
    env: { LOG_STREAMS_PER_TENANT: String(PER_TENANT) },
    services: {
      'monitoring.logs.tail': (data) => {
        const runId = (data as { run_id: string }).run_id;
        const answer = { ok: true, data: { data: [], run_finished: ended.has(runId) } };
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
});
