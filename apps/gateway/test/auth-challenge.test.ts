// A 401's WWW-Authenticate (RFC 6750 3, 3.1): a bearer token sent and refused is error="invalid_token" with a short
// description; no credential, another scheme or an API key keeps the plain challenges.
import { SignJWT } from 'jose';
import { type GatewayApp, startGatewayApp } from './gateway-app.js';

const SECRET = 'a-test-secret-of-at-least-32-bytes!!';
const ISSUER = 'https://idp.test/';
const AUDIENCE = 'conduit-api';
const PLAIN = 'Bearer realm="conduit", ApiKey header="X-API-Key"';

let gateway: GatewayApp;

beforeAll(async () => {
  gateway = await startGatewayApp({
    env: { JWT_SECRET: SECRET, JWT_ISSUER: ISSUER, JWT_AUDIENCE: AUDIENCE },
    services: { 'catalog.projects.list': () => ({ ok: true, data: { data: [], next_cursor: null } }) },
  });
});

afterAll(async () => {
  await gateway?.stop();
});

function token(expiresAt: number | string, secret = SECRET, alg = 'HS256'): Promise<string> {
  return new SignJWT({ tenant_id: 'tnt_acme', scope: 'read' })
    .setProtectedHeader({ alg })
    .setIssuer(ISSUER)
    .setAudience(AUDIENCE)
    .setSubject('user-1')
    .setExpirationTime(expiresAt)
    .sign(new TextEncoder().encode(secret));
}

const list = (headers: Record<string, string>) => fetch(`${gateway.url}/v2/projects`, { headers });

describe("a 401's WWW-Authenticate", () => {
  it.each([
    ['an expired token', async () => token(Math.floor(Date.now() / 1000) - 600), 'token expired'],
    ['a token with a bad signature', async () => token('5m', 'another-secret-of-at-least-32-bytes!'), 'signature'],
    ['a bearer that is not a JWT', async () => 'not-a-jwt', 'malformed bearer token'],
  ])('%s: error="invalid_token" with a description', async (_label, make, description) => {
    const sent = await make();
    const res = await list({ authorization: `Bearer ${sent}` });
    expect(res.status).toBe(401);
    const challenge = res.headers.get('www-authenticate') ?? '';
    expect(challenge).toMatch(
      /^Bearer realm="conduit", error="invalid_token", error_description="[^"\\]+", ApiKey header="X-API-Key"$/,
    );
    expect(challenge).toContain(description);
    expect(challenge).not.toContain(sent);
    expect(await res.json()).toMatchObject({ code: 'unauthenticated' });
  });

  it("a token's own alg is not repeated in the header", async () => {
    const [, ...rest] = (await token('5m')).split('.');
    const alg = 'X"\\evil';
    const forged = [Buffer.from(JSON.stringify({ alg })).toString('base64url'), ...rest].join('.');
    const res = await list({ authorization: `Bearer ${forged}` });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe(
      'Bearer realm="conduit", error="invalid_token", error_description="token algorithm is not accepted", ' +
        'ApiKey header="X-API-Key"',
    );
  });

  it.each([
    ['no credential', {}],
    ['a Basic header', { authorization: 'Basic dXNlcjpwYXNz' }],
    ['an unknown API key', { 'x-api-key': `cnd_${'z'.repeat(43)}` }],
  ])('%s: the plain challenges', async (_label, headers: Record<string, string>) => {
    const res = await list(headers);
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe(PLAIN);
  });

  it('a valid token is let in', async () => {
    expect((await list({ authorization: `Bearer ${await token('5m')}` })).status).toBe(200);
  });
});
