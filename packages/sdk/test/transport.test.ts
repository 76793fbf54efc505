// Retries, Idempotency-Key and credentials, against a real local HTTP server.
import { ConduitApiError, createConduitClient } from '../src/index.js';
import { json, problem, project, startServer, type TestServer } from './http-server.js';

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const fast = { baseDelayMs: 5, maxDelayMs: 2000 };

describe('retries', () => {
  it('retries a 503 after its Retry-After and answers the success', async () => {
    let calls = 0;
    server = await startServer((_req, res) =>
      ++calls === 1
        ? json(res, 503, problem(503, 'service_unavailable'), { 'retry-after': '1' })
        : json(res, 200, project('prj_1')),
    );
    const client = createConduitClient({ baseUrl: server.baseUrl, apiKey: 'cnd_k', retry: fast });
    await expect(client.projects.get('prj_1')).resolves.toMatchObject({ id: 'prj_1' });
    expect(server.requests).toHaveLength(2);
    const waited = server.requests[1]!.at - server.requests[0]!.at;
    expect(waited).toBeGreaterThanOrEqual(1000);
    expect(waited).toBeLessThan(1100 + 200);
  });

  it('sends the same Idempotency-Key on the retries of one POST, and a new one on the next POST', async () => {
    let calls = 0;
    server = await startServer((req, res) =>
      ++calls % 3 !== 0
        ? json(res, 429, problem(429, 'rate_limited'), { 'retry-after': '0' })
        : json(res, 201, project(`prj_${calls}`)),
    );
    const client = createConduitClient({ baseUrl: server.baseUrl, apiKey: 'cnd_k', retry: fast });
    await client.projects.create({ name: 'a' });
    await client.projects.create({ name: 'b' });
    const keys = server.requests.map((r) => r.headers['idempotency-key']);
    expect(keys).toHaveLength(6);
    expect(new Set(keys.slice(0, 3)).size).toBe(1);
    expect(new Set(keys.slice(3)).size).toBe(1);
    expect(keys[0]).not.toBe(keys[3]);
    expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(server.requests.map((r) => (JSON.parse(r.body) as { name: string }).name)).toEqual([
      'a',
      'a',
      'a',
      'b',
      'b',
      'b',
    ]);
  });

  it('gives up after maxAttempts and throws the last problem', async () => {
    server = await startServer((_req, res) =>
      json(res, 503, problem(503, 'service_unavailable', { dependency: 'database' }), { 'retry-after': '0' }),
    );
    const client = createConduitClient({
      baseUrl: server.baseUrl,
      apiKey: 'cnd_k',
      retry: { ...fast, maxAttempts: 3 },
    });
    const err: unknown = await client.projects.get('prj_1').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConduitApiError);
    expect(err).toMatchObject({ status: 503, code: 'service_unavailable', problem: { dependency: 'database' } });
    expect(server.requests).toHaveLength(3);
  });

  it('does not wait for a Retry-After beyond maxDelayMs: the 429 comes back at once', async () => {
    server = await startServer((_req, res) => json(res, 429, problem(429, 'rate_limited'), { 'retry-after': '60' }));
    const client = createConduitClient({ baseUrl: server.baseUrl, apiKey: 'cnd_k', retry: { maxDelayMs: 5000 } });
    const started = Date.now();
    await expect(client.projects.get('prj_1')).rejects.toMatchObject({ status: 429, code: 'rate_limited' });
    expect(Date.now() - started).toBeLessThan(1000);
    expect(server.requests).toHaveLength(1);
  });

  it('retries a 409 idempotency_in_progress but no other 409, and never a 4xx', async () => {
    const answers = [
      () => problem(409, 'idempotency_in_progress'),
      () => problem(409, 'name_taken', { errors: [{ path: 'name', code: 'name_taken', message: 'is taken' }] }),
    ];
    let calls = 0;
    server = await startServer((_req, res) => json(res, 409, answers[Math.min(calls++, 1)]!(), { 'retry-after': '0' }));
    const client = createConduitClient({ baseUrl: server.baseUrl, apiKey: 'cnd_k', retry: fast });
    const err = await client.projects.create({ name: 'x' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConduitApiError);
    expect(err).toMatchObject({
      code: 'name_taken',
      title: 'name taken',
      detail: 'name_taken happened',
      errors: [{ path: 'name', code: 'name_taken' }],
    });
    expect(server.requests).toHaveLength(2);
  });

  it('resends a GET whose connection dropped, but not a POST without an Idempotency-Key', async () => {
    let calls = 0;
    server = await startServer((_req, res) =>
      ++calls === 1 ? res.socket?.destroy() : json(res, 200, project('prj_1')),
    );
    const client = createConduitClient({ baseUrl: server.baseUrl, apiKey: 'cnd_k', retry: fast });
    await expect(client.projects.get('prj_1')).resolves.toMatchObject({ id: 'prj_1' });

    calls = 0;
    const unkeyed = createConduitClient({
      baseUrl: server.baseUrl,
      apiKey: 'cnd_k',
      retry: fast,
      idempotencyKeys: false,
    });
    await expect(unkeyed.projects.create({ name: 'x' })).rejects.toThrow();
    expect(server.requests.filter((r) => r.method === 'POST')).toHaveLength(1);
  });
});

describe('conditional writes (If-Match)', () => {
  it('never resends one after a 503 or a dropped connection (its first try may have been applied): only after a 429', async () => {
    let calls = 0;
    server = await startServer((_req, res) =>
      ++calls === 1 ? json(res, 503, problem(503, 'service_unavailable'), { 'retry-after': '0' }) : json(res, 412, {}),
    );
    const client = createConduitClient({ baseUrl: server.baseUrl, apiKey: 'cnd_k', retry: fast });
    await expect(client.projects.update('prj_1', { name: 'a' }, { ifMatch: '"3"' })).rejects.toMatchObject({
      status: 503,
    });
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]!.headers['if-match']).toBe('"3"');

    calls = 0;
    await server.close();
    server = await startServer((_req, res) => (++calls === 1 ? res.socket?.destroy() : json(res, 204, undefined)));
    const dropped = createConduitClient({ baseUrl: server.baseUrl, apiKey: 'cnd_k', retry: fast });
    await expect(dropped.projects.delete('prj_1', { ifMatch: '"3"' })).rejects.toThrow();
    expect(server.requests).toHaveLength(1);

    calls = 0;
    await server.close();
    server = await startServer((_req, res) =>
      ++calls === 1
        ? json(res, 429, problem(429, 'rate_limited'), { 'retry-after': '0' })
        : json(res, 200, project('prj_1')),
    );
    const limited = createConduitClient({ baseUrl: server.baseUrl, apiKey: 'cnd_k', retry: fast });
    await expect(limited.projects.update('prj_1', { name: 'a' }, { ifMatch: '"3"' })).resolves.toMatchObject({
      id: 'prj_1',
    });
    expect(server.requests).toHaveLength(2);
  });

  it('refuses an ifMatch that is no ETag instead of writing unconditionally', async () => {
    server = await startServer((_req, res) => json(res, 200, project('prj_1')));
    const client = createConduitClient({ baseUrl: server.baseUrl, apiKey: 'cnd_k', retry: fast });
    const options = { ifMatch: undefined } as unknown as { ifMatch: string };
    await expect(client.projects.update('prj_1', { name: 'a' }, options)).rejects.toThrow(/ifMatch is not an ETag/);
    await expect(client.jobs.delete('job_1', { ifMatch: '' })).rejects.toThrow(TypeError);
    expect(server.requests).toHaveLength(0);
  });
});

describe('credentials and errors', () => {
  it('sends X-API-Key or a bearer token, and a User-Agent', async () => {
    server = await startServer((_req, res) => json(res, 200, project('prj_1')));
    await createConduitClient({ baseUrl: server.baseUrl, apiKey: 'cnd_k1' }).projects.get('prj_1');
    await createConduitClient({ baseUrl: `${server.baseUrl}/`, token: 'jwt.t.s' }).projects.get('prj_1');
    expect(server.requests.map((r) => [r.url, r.headers['x-api-key'], r.headers.authorization])).toEqual([
      ['/v2/projects/prj_1', 'cnd_k1', undefined],
      ['/v2/projects/prj_1', undefined, 'Bearer jwt.t.s'],
    ]);
    expect(server.requests[0]!.headers['user-agent']).toMatch(/^conduit-sdk\//);
    expect(() => createConduitClient({ baseUrl: server!.baseUrl, apiKey: 'a', token: 'b' })).toThrow(/not both/);
  });

  it('calls the given fetch as a plain function, as a browser fetch requires ("Illegal invocation" otherwise)', async () => {
    server = await startServer((_req, res) => json(res, 200, project('prj_1')));
    // Like the browser's fetch: refuses to run with any `this` but the global object (or none).
    const browserLikeFetch = function (this: unknown, input: Request) {
      if (this !== undefined && this !== globalThis) throw new TypeError('Illegal invocation');
      return globalThis.fetch(input);
    } as typeof fetch;
    const client = createConduitClient({ baseUrl: server.baseUrl, apiKey: 'cnd_k', fetch: browserLikeFetch });
    await expect(client.projects.get('prj_1')).resolves.toMatchObject({ id: 'prj_1' });
  });

  it('turns an answer without a problem document into a ConduitApiError with the status', async () => {
    server = await startServer(
      (_req, res) => (res.writeHead(502, { 'content-type': 'text/html' }), res.end('<h1>bad gateway</h1>')),
    );
    const err = await createConduitClient({ baseUrl: server.baseUrl, apiKey: 'k' })
      .projects.get('prj_1')
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConduitApiError);
    expect(err).toMatchObject({ status: 502, code: 'http_502', errors: [] });
  });
  it('never follows a redirect, which would carry the API key to the host it names', async () => {
    const elsewhere = await startServer((_req, res) => json(res, 200, project('prj_1')));
    try {
      server = await startServer(
        (req, res) => (res.writeHead(307, { location: `${elsewhere.baseUrl}${req.url}` }), res.end()),
      );
      const err = await createConduitClient({ baseUrl: server.baseUrl, apiKey: 'cnd_secret', retry: fast })
        .projects.get('prj_1')
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ConduitApiError);
      expect(err).toMatchObject({ status: 307, code: 'redirect_not_followed' });
      expect((err as ConduitApiError).detail).toContain(elsewhere.baseUrl);
      // Asked once, not retried, and the other host never heard of it.
      expect(server.requests).toHaveLength(1);
      expect(elsewhere.requests).toEqual([]);
    } finally {
      await elsewhere.close();
    }
  });
});
