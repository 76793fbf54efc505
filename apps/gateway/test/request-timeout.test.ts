// REQUEST_RECEIVE_TIMEOUT_MS: a client that never finishes sending its request loses the connection once the time
// is up (slowloris), while answers that take or stream longer than that are left alone.
import { timer, map } from 'rxjs';
import { newId } from '@conduit/service-kit';
import { type GatewayApp, rawExchange, startGatewayApp } from './gateway-app.js';

const TIMEOUT_MS = 400;
/** The timeout and Node's check interval (a tenth of it), with room for a loaded machine. */
const CLOSED_BY_MS = TIMEOUT_MS + 1500;

let gateway: GatewayApp;
/** When the stub's run ends: the live log stream lasts until then. */
let runEndsAt = Infinity;

beforeAll(async () => {
  gateway = await startGatewayApp({
    receiveTimeoutMs: TIMEOUT_MS,
    services: {
      'monitoring.logs.tail': () => ({
        ok: true,
        data: { data: [], scanned_seq: 0, run_finished: Date.now() >= runEndsAt },
      }),
      // A service slower to answer than a client may take to send.
      'catalog.projects.list': () =>
        timer(3 * TIMEOUT_MS).pipe(map(() => ({ ok: true, data: { data: [], next_cursor: null } }))),
    },
  });
});

afterAll(async () => {
  await gateway?.stop();
});

describe('a request that is not received in time', () => {
  it('a body dripped one byte at a time is answered 408 and its connection closed once the time is up', async () => {
    const head =
      'POST /v2/projects HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n' +
      `X-API-Key: ${gateway.key}\r\n\r\n{"name":"`;
    const answer = await rawExchange(gateway.port, head, { drip: { everyMs: 50 }, deadlineMs: 10_000 });
    expect(answer.status).toBe(408);
    expect(answer.elapsedMs).toBeGreaterThanOrEqual(TIMEOUT_MS - 50);
    expect(answer.elapsedMs).toBeLessThan(CLOSED_BY_MS);
    // The body never reached a handler.
    expect(gateway.calls.filter((c) => c.pattern === 'catalog.projects.create')).toEqual([]);
  });

  it.each([
    ['a connection that sends nothing', ''],
    ['a head that never ends', 'GET /v2/projects HTTP/1.1\r\nHost: 127.0.0.1\r\n'],
  ])('%s is closed too', async (_label, request) => {
    const answer = await rawExchange(gateway.port, request, { deadlineMs: 10_000 });
    expect(answer.status).toBe(408);
    expect(answer.elapsedMs).toBeLessThan(CLOSED_BY_MS);
  });
});

describe('answers are not bounded by it', () => {
  it('a service that answers after the timeout still gets its answer to the client', async () => {
    const started = Date.now();
    const res = await fetch(`${gateway.url}/v2/projects`, { headers: { 'x-api-key': gateway.key } });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ data: [], next_cursor: null });
    expect(Date.now() - started).toBeGreaterThanOrEqual(3 * TIMEOUT_MS - 50);
  });

  it('the run-log live stream stays open for as long as the run lasts', async () => {
    const started = Date.now();
    runEndsAt = started + 4 * TIMEOUT_MS;
    const res = await fetch(`${gateway.url}/v2/jobs/${newId('job')}/runs/${newId('run')}/logs`, {
      headers: { 'x-api-key': gateway.key, accept: 'text/event-stream' },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    // Read to its end: the stream ends by itself once the run has, with `event: end`, not by a timeout.
    expect(await res.text()).toContain('event: end');
    expect(Date.now() - started).toBeGreaterThanOrEqual(4 * TIMEOUT_MS);
  });
});
