// Live log streams are bounded per tenant: each polls monitoring for as long as its run lasts, so one tenant's
// streams must not take monitoring from the others (an attacker's probe opened ~2,000 and slowed every tenant's log
// reads a hundredfold).
import { newId } from '@conduit/service-kit';
import { type GatewayApp, startGatewayApp } from './gateway-app.js';

const PER_TENANT = 3;
let gateway: GatewayApp;
/** Runs whose stub says they have ended: their streams send `event: end`. */
const ended = new Set<string>();
const streams: AbortController[] = [];

beforeAll(async () => {
  gateway = await startGatewayApp({
    env: { LOG_STREAMS_PER_TENANT: String(PER_TENANT) },
    services: {
      'monitoring.logs.tail': (data) => ({
        ok: true,
        data: { data: [], run_finished: ended.has((data as { run_id: string }).run_id) },
      }),
    },
  });
});

afterAll(async () => {
  for (const stream of streams) stream.abort();
  await gateway?.stop();
});

/** Opens a live stream of a new run's logs with `key`: its answer (the body is left open) and the run's id. */
async function openStream(key: string): Promise<{ res: Response; runId: string }> {
  const runId = newId('run');
  const controller = new AbortController();
  streams.push(controller);
  const res = await fetch(`${gateway.url}/v2/jobs/${newId('job')}/runs/${runId}/logs`, {
    headers: { 'x-api-key': key, accept: 'text/event-stream' },
    signal: controller.signal,
  });
  return { res, runId };
}

describe('live log streams', () => {
  it('are bounded per tenant: one more is a 429 with Retry-After, other tenants and paged reads still get theirs', async () => {
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
    const paged = await fetch(`${gateway.url}/v2/jobs/${newId('job')}/runs/${newId('run')}/logs`, {
      headers: { 'x-api-key': gateway.key },
    });
    expect(paged.status).not.toBe(429);

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
});
