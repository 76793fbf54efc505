import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { getDriver, type ConnectorDriver, type Row } from '../src/index.js';
import { expectClosedPortTransient, expectUnknownHostRefused, failureOf } from './support/driver-checks.js';
import { checkNames, expectPassed } from './support/test-connection.js';
import { sendJson, startHttpFixture, type HttpFixture } from './support/http-fixture.js';
import { allowPrivateNetworks, setEnv } from './support/network-policy.js';

const driver = getDriver('http') as Required<ConnectorDriver>;
let api: HttpFixture;
const ITEMS = Array.from({ length: 25 }, (_, i) => ({ id: i + 1, name: `item ${i + 1}` }));

async function readAll(
  config: Record<string, unknown>,
  req: Record<string, unknown>,
): Promise<{ batches: number; rows: Row[] }> {
  const rows: Row[] = [];
  let batches = 0;
  for await (const batch of driver.read(config, req)) {
    batches += 1;
    rows.push(...batch);
  }
  return { batches, rows };
}

// The test server listens on this machine, which the default network policy refuses.
allowPrivateNetworks();

beforeAll(async () => {
  api = await startHttpFixture();
  api.route('/health', (_req, res) => sendJson(res, 200, { ok: true }));
  api.route('/paged', (req, res) => {
    const page = Number(req.url.searchParams.get('page'));
    const size = Number(req.url.searchParams.get('per_page'));
    sendJson(res, 200, { data: { items: ITEMS.slice((page - 1) * size, page * size) } });
  });
  api.route('/cursor', (req, res) => {
    const at = Number(req.url.searchParams.get('after') ?? 0);
    const items = ITEMS.slice(at, at + 10);
    sendJson(res, 200, { results: items, meta: { next: at + 10 < ITEMS.length ? String(at + 10) : null } });
  });
  api.route('/linked', (req, res) => {
    const offset = Number(req.url.searchParams.get('offset') ?? 0);
    const headers: Record<string, string> =
      offset + 10 < ITEMS.length
        ? {
            link: `<${api.baseUrl}/linked?offset=${offset + 10}>; rel="next", <${api.baseUrl}/linked?offset=0>; rel="first"`,
          }
        : {};
    sendJson(res, 200, ITEMS.slice(offset, offset + 10), headers);
  });
  api.route('/escape', (_req, res) =>
    sendJson(res, 200, [{ id: 1 }], { link: '<http://example.com/steal>; rel="next"' }),
  );
});
afterAll(async () => {
  await api.close();
});

describe('http read', () => {
  it('follows page numbers to a short page, taking records at a JSON path', async () => {
    const { batches, rows } = await readAll(
      { base_url: api.baseUrl },
      {
        path: '/paged',
        pagination: 'page',
        per_page: 10,
        records_path: 'data.items',
      },
    );
    expect(batches).toBe(3);
    expect(rows).toEqual(ITEMS);
  });

  it('follows a cursor taken from each answer', async () => {
    const { batches, rows } = await readAll(
      { base_url: api.baseUrl },
      {
        path: '/cursor',
        pagination: 'cursor',
        cursor_path: 'meta.next',
        cursor_param: 'after',
        records_path: 'results',
      },
    );
    expect(batches).toBe(3);
    expect(rows.map((r) => r['id'])).toEqual(ITEMS.map((i) => i.id));
  });

  it('follows Link rel="next" and refuses a link to another origin', async () => {
    const { batches, rows } = await readAll({ base_url: api.baseUrl }, { path: '/linked', pagination: 'link' });
    expect(batches).toBe(3);
    expect(rows).toEqual(ITEMS);
    await expect(readAll({ base_url: api.baseUrl }, { path: '/escape', pagination: 'link' })).rejects.toMatchObject({
      errorClass: 'config_error',
      message: expect.stringMatching(/leaves http:\/\/127\.0\.0\.1/),
    });
  });

  it("refuses a node path that is a full URL on another origin: the connector's credentials never leave base_url", async () => {
    const other = await startHttpFixture();
    other.route('/steal', (_req, res) => sendJson(res, 200, [{ id: 1 }]));
    try {
      const config = { base_url: api.baseUrl, auth_type: 'bearer', bearer_token: 'tok-secret' };
      await expect(readAll(config, { path: `${other.baseUrl}/steal` })).rejects.toMatchObject({
        errorClass: 'config_error',
        message: expect.stringMatching(/leaves the connector's base_url/),
      });
      await expect(
        driver.write(
          config,
          { table: '', mode: 'append', path: `${other.baseUrl}/steal` },
          (async function* () {
            yield [{ id: 1 }];
          })(),
        ),
      ).rejects.toMatchObject({ errorClass: 'config_error' });
      expect(other.requests).toEqual([]);
      // A full URL on the connector's own origin is still fine.
      const { rows } = await readAll(config, { path: `${api.baseUrl}/linked?offset=20` });
      expect(rows).toEqual(ITEMS.slice(20));
    } finally {
      await other.close();
    }
  });

  it('retries 429 and 503 honouring Retry-After, then reads', async () => {
    let calls = 0;
    api.route('/flaky', (_req, res) => {
      calls += 1;
      if (calls === 1) sendJson(res, 429, { error: 'slow down' }, { 'retry-after': '1' });
      else if (calls === 2) sendJson(res, 503, { error: 'busy' });
      else sendJson(res, 200, [{ id: 'ok' }]);
    });
    const started = Date.now();
    const { rows } = await readAll({ base_url: api.baseUrl }, { path: '/flaky' });
    expect(rows).toEqual([{ id: 'ok' }]);
    expect(calls).toBe(3);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
  });

  it('gives up after max_retries as a transient_error, and a 404 at once as a config_error', async () => {
    let calls = 0;
    api.route('/down', (_req, res) => {
      calls += 1;
      sendJson(res, 500, { error: 'down' });
    });
    await expect(
      readAll({ base_url: api.baseUrl, max_retries: 2, max_retry_wait_ms: 10 }, { path: '/down' }),
    ).rejects.toMatchObject({
      errorClass: 'transient_error',
      code: 'HTTP_500',
    });
    expect(calls).toBe(3);
    await expect(readAll({ base_url: api.baseUrl }, { path: '/nothing-here' })).rejects.toMatchObject({
      errorClass: 'config_error',
      code: 'HTTP_404',
    });
  });

  it.each([
    [
      'bearer',
      { auth_type: 'bearer', bearer_token: 'tok-1' },
      (h: Record<string, unknown>) => h['authorization'] === 'Bearer tok-1',
    ],
    [
      'header',
      { auth_type: 'header', auth_header_name: 'X-Api-Key', auth_header_value: 'k-2' },
      (h: Record<string, unknown>) => h['x-api-key'] === 'k-2',
    ],
    [
      'basic',
      { auth_type: 'basic', username: 'ann', password: 'p:3' },
      (h: Record<string, unknown>) => h['authorization'] === `Basic ${Buffer.from('ann:p:3').toString('base64')}`,
    ],
  ])('sends %s auth', async (kind, auth, accepts) => {
    api.route(`/auth-${kind}`, (req, res) =>
      accepts(req.headers) ? sendJson(res, 200, [{ who: kind }]) : sendJson(res, 401, {}),
    );
    await expect(readAll({ base_url: api.baseUrl, ...auth }, { path: `/auth-${kind}` })).resolves.toMatchObject({
      rows: [{ who: kind }],
    });
    await expect(readAll({ base_url: api.baseUrl }, { path: `/auth-${kind}` })).rejects.toMatchObject({
      errorClass: 'config_error',
      message: expect.stringMatching(/HTTP 401 \(check the credentials\)/),
    });
  });

  it('refuses a cursor read without cursor_path', async () => {
    await expect(readAll({ base_url: api.baseUrl }, { path: '/cursor', pagination: 'cursor' })).rejects.toMatchObject({
      errorClass: 'config_error',
      message: 'cursor pagination needs cursor_path',
    });
  });
});

describe('http write', () => {
  it('POSTs rows as JSON arrays of batch_size', async () => {
    const received: unknown[][] = [];
    api.route('/sink', (req, res) => {
      received.push(JSON.parse(req.body) as unknown[]);
      sendJson(res, 201, { accepted: true });
    });
    async function* batches() {
      yield ITEMS.slice(0, 7);
      yield ITEMS.slice(7, 25).map((item) => ({ ...item, big: 2n ** 70n }));
    }
    const result = await driver.write(
      { base_url: api.baseUrl },
      { table: '', path: '/sink', mode: 'append', batch_size: 10 },
      batches(),
    );
    expect(result).toEqual({ rows_written: 25 });
    expect(received.map((b) => b.length)).toEqual([10, 10, 5]);
    expect(received[2]?.[4]).toEqual({ id: 25, name: 'item 25', big: (2n ** 70n).toString() });
  });
});

describe('http network policy', () => {
  it('refuses loopback without the operator setting, in read and in Test Connection', async () => {
    const restore = setEnv({ CONNECTOR_ALLOW_PRIVATE_NETWORKS: undefined });
    try {
      await expect(readAll({ base_url: api.baseUrl }, { path: '/health' })).rejects.toMatchObject({
        errorClass: 'config_error',
        code: 'network_policy',
        message: expect.stringMatching(/127\.0\.0\.1 is a loopback address/),
      });
      await expect(readAll({ base_url: `http://localhost:${api.port}` }, { path: '/health' })).rejects.toMatchObject({
        code: 'network_policy',
      });
      await expect(
        readAll({ base_url: 'http://169.254.169.254' }, { path: '/latest/meta-data' }),
      ).rejects.toMatchObject({
        code: 'network_policy',
        message: expect.stringMatching(/metadata/),
      });
      const result = await driver.test({ base_url: `http://localhost:${api.port}`, health_path: '/health' });
      expect(result).toMatchObject({ ok: false, error_class: 'config_error' });
      expect(checkNames(result)).toEqual(['resolve:ok', 'network_policy:failed']);
    } finally {
      restore();
    }
  });
});

describe('http Test Connection', () => {
  it('passes resolve, network_policy, connect and request', async () => {
    const result = await driver.test({ base_url: `http://localhost:${api.port}`, health_path: '/health' });
    expectPassed(result, ['resolve', 'network_policy', 'connect', 'request']);
    expect(result.details).toMatchObject({ status: 200 });
  });

  it('calls an unknown host a config_error at resolve', async () => {
    await expectUnknownHostRefused(driver, (host) => ({ base_url: `http://${host}` }));
  });

  it('calls a closed port a transient_error at connect, quickly', async () => {
    await expectClosedPortTransient(driver, (port) => ({ base_url: `http://127.0.0.1:${port}` }));
  });

  it('calls a wrong token a config_error at request and never shows it, even when the server echoes it', async () => {
    const token = `tok-${randomUUID()}`;
    api.route('/secure', (req, res) =>
      sendJson(res, 401, { error: `bad token ${String(req.headers['authorization'])}` }),
    );
    const result = await driver.test({
      base_url: api.baseUrl,
      health_path: '/secure',
      auth_type: 'bearer',
      bearer_token: token,
    });
    expect(result).toMatchObject({ ok: false, error_class: 'config_error' });
    expect(checkNames(result)).toEqual(['resolve:ok', 'network_policy:ok', 'connect:ok', 'request:failed']);
    expect(result.message).toMatch(/HTTP 401 \(check the credentials\).*bad token Bearer \*{8}/);
    expect(JSON.stringify(result)).not.toContain(token);
  });

  it('keeps basic and header secrets out of read errors too', async () => {
    const password = `pw-${randomUUID()}`;
    api.route('/echo', (req, res) =>
      sendJson(res, 403, { saw: req.headers['authorization'], key: req.headers['x-key'] }),
    );
    const basic = readAll({ base_url: api.baseUrl, auth_type: 'basic', username: 'u', password }, { path: '/echo' });
    const err = await failureOf(basic);
    expect(err).toMatchObject({ errorClass: 'config_error' });
    expect(err.message).not.toContain(Buffer.from(`u:${password}`).toString('base64'));
    const header = await failureOf(
      readAll(
        { base_url: api.baseUrl, auth_type: 'header', auth_header_name: 'x-key', auth_header_value: password },
        { path: '/echo' },
      ),
    );
    expect(header.message).toMatch(/HTTP 403/);
    expect(header.message).not.toContain(password);
  });

  it('reads only the start of an answer whose body nobody reads whole: endless answers pass or fail at once', async () => {
    // Answers that never end: before, each was read up to 64 MiB and failed as response_too_large.
    const endless = (status: number) => (_req: unknown, res: ServerResponse) => {
      res.writeHead(status, { 'content-type': 'text/plain' });
      const chunk = 'x'.repeat(64 * 1024);
      const write = (): void => {
        while (!res.destroyed && res.write(chunk));
        if (!res.destroyed) res.once('drain', write);
      };
      write();
    };
    api.route('/endless-ok', endless(200));
    api.route('/endless-created', endless(201));
    api.route('/endless-error', endless(500));
    const ok = await driver.test({ base_url: api.baseUrl, health_path: '/endless-ok' });
    expectPassed(ok, ['resolve', 'network_policy', 'connect', 'request']);
    const failed = await driver.test({ base_url: api.baseUrl, health_path: '/endless-error' });
    expect(checkNames(failed)).toEqual(['resolve:ok', 'network_policy:ok', 'connect:ok', 'request:failed']);
    // The server's error text, quoted from the start of its answer.
    expect(failed.message).toMatch(/HTTP 500.*xxxxxxxx/);
    async function* rows() {
      yield ITEMS.slice(0, 3);
    }
    await expect(
      driver.write({ base_url: api.baseUrl }, { table: '', path: '/endless-created', mode: 'append' }, rows()),
    ).resolves.toEqual({ rows_written: 3 });
  });

  it('answers an invalid config without connecting', async () => {
    const result = await driver.test({ base_url: 'ftp://x', auth_type: 'bearer' });
    expect(result).toMatchObject({ ok: false, error_class: 'config_error', checks: [] });
    expect(result.message).toMatch(/config\.base_url/);
    expect(result.message).toMatch(/config\.bearer_token/);
  });
});
