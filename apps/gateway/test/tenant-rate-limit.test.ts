// A tenant's admin sets a key's own rate limit, but only up to the operator's maximum, and a tenant's keys together
// stay within the tenant's limit: more keys, or a key of a million a minute, do not buy more of the platform.
import { type GatewayApp, startGatewayApp } from './gateway-app.js';

const TENANT_LIMIT = 5;
const KEY_MAX = 50;
let gateway: GatewayApp;

beforeAll(async () => {
  gateway = await startGatewayApp({
    env: { RATE_LIMIT_TENANT_PER_MINUTE: String(TENANT_LIMIT), RATE_LIMIT_MAX_PER_MINUTE: String(KEY_MAX) },
    services: { 'catalog.projects.list': () => ({ ok: true, data: { data: [], next_cursor: null } }) },
  });
});
afterAll(async () => {
  await gateway?.stop();
});

const list = (key: string) => fetch(`${gateway.url}/v2/projects`, { headers: { 'x-api-key': key } });

async function createKey(adminKey: string, rateLimit: number): Promise<Response> {
  return fetch(`${gateway.url}/v2/api-keys`, {
    method: 'POST',
    headers: { 'x-api-key': adminKey, 'content-type': 'application/json' },
    body: JSON.stringify({ name: `k${rateLimit}`, scopes: ['read'], rate_limit_per_minute: rateLimit }),
  });
}

describe('rate limits beyond one credential', () => {
  it("refuses a key's own limit past the operator's maximum, naming it", async () => {
    const admin = await gateway.newTenantKey();
    const refused = await createKey(admin, 1_000_000);
    expect(refused.status).toBe(422);
    expect(await refused.json()).toMatchObject({
      code: 'validation_failed',
      errors: [{ path: 'rate_limit_per_minute', code: 'out_of_range', message: expect.stringContaining(`${KEY_MAX}`) }],
    });
    expect((await createKey(admin, KEY_MAX)).status).toBe(201);
  });

  it("counts a tenant's keys together: past the tenant's limit every key gets 429, another tenant does not", async () => {
    const admin = await gateway.newTenantKey();
    const { key: second } = (await (await createKey(admin, KEY_MAX)).json()) as { key: string };
    // Creating that key was the tenant's first request; the rest of its minute goes to the two keys in turn.
    const statuses: number[] = [];
    for (let i = 0; i < TENANT_LIMIT + 1; i++) statuses.push((await list(i % 2 === 0 ? admin : second)).status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(TENANT_LIMIT - 1);
    const refused = await list(second);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).not.toBeNull();
    expect(await refused.json()).toMatchObject({
      code: 'rate_limited',
      detail: `more than ${TENANT_LIMIT} requests a minute from this tenant's credentials together`,
    });
    expect((await list(await gateway.newTenantKey())).status).toBe(200);
  });
});
