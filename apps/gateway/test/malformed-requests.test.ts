// Requests Fastify or Node refuse before a route sees them still get api.md's answer: a problem document with its
// X-Request-Id (a path that is no valid percent-encoding, an asterisk-form target, an oversized head, a late body).
import { bodyOf, type GatewayApp, rawExchange, startGatewayApp } from './gateway-app.js';

let gateway: GatewayApp;

beforeAll(async () => {
  gateway = await startGatewayApp({ receiveTimeoutMs: 400 });
});

afterAll(async () => {
  await gateway?.stop();
});

const request = (target: string, headers = '') =>
  `GET ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n${headers}\r\n`;

function expectProblemAnswer(answer: { text: string; status?: number }, status: number, code: string): void {
  const head = answer.text.slice(0, answer.text.indexOf('\r\n\r\n'));
  expect({ status: answer.status, type: /content-type: ([^\r\n;]+)/i.exec(head)?.[1] }).toEqual({
    status,
    type: 'application/problem+json',
  });
  const requestId = /x-request-id: ([^\r\n]+)/i.exec(head)?.[1];
  expect(requestId).toMatch(/^req_/);
  expect(bodyOf(answer as Parameters<typeof bodyOf>[0])).toMatchObject({ status, code, request_id: requestId });
}

describe('requests refused before routing', () => {
  it.each(['/v2/projects/prj_%ff', '/v2/projects/%', '/v2/projects/%zz', '/%c0%80'])(
    '%s, no valid percent-encoding, is a 404 problem naming the path as sent',
    async (target) => {
      const answer = await rawExchange(gateway.port, request(`${target}?token=abc`));
      expectProblemAnswer(answer, 404, 'not_found');
      expect(bodyOf(answer)).toMatchObject({ instance: target });
    },
  );

  it('an asterisk-form target is a 404 problem', async () => {
    expectProblemAnswer(await rawExchange(gateway.port, request('*')), 404, 'not_found');
  });

  it('a head over 16 KiB is a 431 problem', async () => {
    const answer = await rawExchange(gateway.port, request('/v2/projects', `X-Filler: ${'a'.repeat(20_000)}\r\n`));
    expectProblemAnswer(answer, 431, 'headers_too_large');
  });

  it('a body not received in time is a 408 problem', async () => {
    // With a credential: without one, the request is refused before its body is read (admit-before-body.test.ts).
    const head =
      `POST /v2/projects HTTP/1.1\r\nHost: 127.0.0.1\r\nX-API-Key: ${gateway.key}\r\n` +
      'Content-Type: application/json\r\nContent-Length: 10\r\n\r\n{';
    expectProblemAnswer(await rawExchange(gateway.port, head), 408, 'request_timeout');
  });
});

describe('a compressed body', () => {
  const post = (headers: Record<string, string>, body: string) =>
    fetch(`${gateway.url}/v2/projects`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': gateway.key, ...headers },
      body,
    });
  const callsWith = (name: string) => gateway.calls.filter((call) => JSON.stringify(call.data).includes(name));

  it.each(['gzip', 'br', 'identity, gzip', 'GZIP '])(
    'Content-Encoding %s is a 415 naming the coding, and no service is asked',
    async (coding) => {
      const name = `compressed-${coding.replace(/\W/g, '')}-${Date.now()}`;
      // The body is plain JSON: taken as such despite its header, it would reach the catalog.
      const res = await post({ 'content-encoding': coding }, JSON.stringify({ name }));
      expect(res.status).toBe(415);
      expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      const problem = (await res.json()) as { code: string; detail: string };
      expect(problem.code).toBe('unsupported_media_type');
      expect(problem.detail).toContain(coding.split(',').at(-1)!.trim().toLowerCase());
      expect(callsWith(name)).toEqual([]);
    },
  );

  it('Content-Encoding identity is the body as sent', async () => {
    const name = `identity-${Date.now()}`;
    await post({ 'content-encoding': 'identity' }, JSON.stringify({ name }));
    expect(callsWith(name)).toHaveLength(1);
  });
});

describe('a body in a charset other than UTF-8', () => {
  const post = (contentType: string, body: string) =>
    fetch(`${gateway.url}/v2/projects`, {
      method: 'POST',
      headers: { 'content-type': contentType, 'x-api-key': gateway.key },
      body,
    });
  const callsWith = (name: string) => gateway.calls.filter((call) => JSON.stringify(call.data).includes(name));

  it.each([
    ['application/json; charset=utf-16', 'utf-16'],
    ['application/json; charset=UTF-16LE', 'utf-16le'],
    ['application/json;charset="ISO-8859-1"', 'iso-8859-1'],
    ['application/json; charset=us-ascii', 'us-ascii'],
  ])('%s is a 415 naming the charset, and no service is asked', async (contentType, charset) => {
    const name = `charset-${charset.replace(/\W/g, '')}-${Date.now()}`;
    // The body is ASCII JSON: read as UTF-8 despite its header, it would reach the catalog.
    const res = await post(contentType, JSON.stringify({ name }));
    expect(res.status).toBe(415);
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    const problem = (await res.json()) as { code: string; detail: string };
    expect(problem.code).toBe('unsupported_media_type');
    expect(problem.detail).toContain(`"${charset}"`);
    expect(problem.detail).toContain('only UTF-8 JSON is accepted');
    expect(callsWith(name)).toEqual([]);
  });

  it.each([
    'application/json; charset=utf-8',
    'application/json; charset=UTF-8',
    'application/json;charset="utf-8"',
    'application/json; charset=utf8',
    'application/json',
  ])('%s is read', async (contentType) => {
    const name = `utf8-${contentType.replace(/\W/g, '')}-${Date.now()}`;
    await post(contentType, JSON.stringify({ name }));
    expect(callsWith(name)).toHaveLength(1);
  });
});
