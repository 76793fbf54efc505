// A request with a body is admitted (credential, rates) before its body is read: nobody without a credential, or past
// their rate, makes the gateway parse a megabyte of JSON. Bodies that are not JSON tell parsing from admission apart.
import { rawExchange, startGatewayApp, type GatewayApp } from './gateway-app.js';

let gateway: GatewayApp;

beforeAll(async () => {
  gateway = await startGatewayApp({ env: { RATE_LIMIT_PER_MINUTE: '3' } });
});

afterAll(async () => {
  await gateway?.stop();
});

/** POSTs `body` as JSON; answers the status and the problem's code. */
async function post(path: string, body: string, key?: string): Promise<{ status: number; code: unknown }> {
  const res = await fetch(`${gateway.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(key === undefined ? {} : { 'x-api-key': key }) },
    body,
  });
  return { status: res.status, code: ((await res.json()) as { code?: unknown }).code };
}

const NOT_JSON = '{"name": ';

it('refuses a body without a credential, or with a wrong one, before parsing it: 401, not 400', async () => {
  await expect(post('/v2/projects', NOT_JSON)).resolves.toEqual({ status: 401, code: 'unauthenticated' });
  await expect(post('/v2/projects', NOT_JSON, 'cnd_not_a_key')).resolves.toEqual({
    status: 401,
    code: 'unauthenticated',
  });
});

it('parses the body of an admitted request as before', async () => {
  const key = await gateway.newTenantKey();
  await expect(post('/v2/projects', NOT_JSON, key)).resolves.toEqual({ status: 400, code: 'malformed_json' });
});

it('refuses a body past the rate before parsing it: 429, not 400', async () => {
  const key = await gateway.newTenantKey();
  for (let i = 0; i < 3; i++) expect((await post('/v2/projects', NOT_JSON, key)).status).toBe(400);
  await expect(post('/v2/projects', NOT_JSON, key)).resolves.toEqual({ status: 429, code: 'rate_limited' });
});

it('never parses a body sent to no route: a 404 as without one', async () => {
  await expect(post('/v2/no-such-thing', NOT_JSON)).resolves.toEqual({ status: 404, code: 'not_found' });
  const key = await gateway.newTenantKey();
  await expect(post('/v2/no-such-thing', NOT_JSON, key)).resolves.toEqual({ status: 404, code: 'not_found' });
});

it('answers a credential-less request with a body it has not received yet at once, without waiting for it', async () => {
  // Ten bytes announced, one sent: the 401 does not wait for the other nine.
  const answer = await rawExchange(
    gateway.port,
    'POST /v2/projects HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: 10\r\n\r\n{',
    { deadlineMs: 5000 },
  );
  expect(answer.status).toBe(401);
});
