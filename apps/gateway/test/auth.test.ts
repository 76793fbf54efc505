import { SignJWT } from 'jose';
import { newId } from '@conduit/service-kit';
import { ApiKeysService } from '../src/api-keys/api-keys.service.js';
import { authConfigSchema, type AuthConfig } from '../src/auth/auth.config.js';
import { AuthService } from '../src/auth/auth.service.js';
import { JwtVerifier } from '../src/auth/jwt-verifier.js';
import type { ApiKeyCache } from '../src/auth/api-key-cache.js';
import { rejectionCode, useApiKeyWorld } from './auth-fixtures.js';

const SECRET = 'a-test-secret-of-at-least-32-bytes!!';
const ISSUER = 'https://idp.test/';
const AUDIENCE = 'conduit-api';
const config: AuthConfig = authConfigSchema.parse({ JWT_SECRET: SECRET, JWT_ISSUER: ISSUER, JWT_AUDIENCE: AUDIENCE });

const world = useApiKeyWorld();
let auth: AuthService;
let keys: ApiKeysService;
let cache: ApiKeyCache;

beforeAll(async () => {
  cache = await world.openCache();
  keys = new ApiKeysService(world.db.dataSource, config, cache);
  auth = new AuthService(world.authenticator(cache), new JwtVerifier(config));
});

interface TokenSpec {
  claims?: Record<string, unknown>;
  issuer?: string;
  audience?: string;
  expiresAt?: number | string | null;
  secret?: string;
  alg?: string;
  /** The `sub` claim; null leaves it out. Default `user-1`. */
  subject?: string | null;
}

function hsToken(spec: TokenSpec = {}): Promise<string> {
  const jwt = new SignJWT({ tenant_id: 'tnt_acme', scope: 'read write', ...spec.claims })
    .setProtectedHeader({ alg: spec.alg ?? 'HS256' })
    .setIssuer(spec.issuer ?? ISSUER)
    .setAudience(spec.audience ?? AUDIENCE)
    .setIssuedAt();
  if (spec.subject !== null) jwt.setSubject(spec.subject ?? 'user-1');
  if (spec.expiresAt !== null) jwt.setExpirationTime(spec.expiresAt ?? '5m');
  return jwt.sign(new TextEncoder().encode(spec.secret ?? SECRET));
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

describe('AuthService credentials', () => {
  it('accepts an API key', async () => {
    const tenant = newId('tenant');
    const created = await keys.create(tenant, { name: 'svc', scopes: ['admin'] });
    await expect(auth.authenticate({ apiKey: created.key })).resolves.toMatchObject({
      tenant_id: tenant,
      kind: 'api_key',
    });
  });

  it.each([
    ['no credential', {}],
    ['both credentials', { apiKey: `cnd_${'x'.repeat(43)}`, authorization: 'Bearer abc.def.ghi' }],
    ['a Basic header', { authorization: 'Basic dXNlcjpwYXNz' }],
    ['an empty bearer', { authorization: 'Bearer ' }],
    ['a bearer that is not a JWT', { authorization: 'Bearer not-a-jwt' }],
    ['a malformed API key', { apiKey: 'short' }],
    ['an unknown API key', { apiKey: `cnd_${'z'.repeat(43)}` }],
  ])('refuses %s as unauthenticated', async (_label, headers) => {
    expect(await rejectionCode(auth.authenticate(headers))).toBe('unauthenticated');
  });
});

describe('HS256 bearer tokens', () => {
  it('accepts a valid token, taking tenant and scopes from the claims', async () => {
    await expect(auth.authenticate(bearer(await hsToken()))).resolves.toEqual({
      tenant_id: 'tnt_acme',
      scopes: ['read', 'write'],
      credential_id: 'jwt:tnt_acme:user-1',
      kind: 'jwt',
      rate_limit_per_minute: null,
    });
    await expect(auth.authenticate(bearer(await hsToken({ alg: 'HS512' })))).resolves.toMatchObject({
      tenant_id: 'tnt_acme',
    });
    await expect(auth.authenticate({ authorization: `bearer ${await hsToken()}` })).resolves.toMatchObject({
      kind: 'jwt',
    });
  });

  it.each([
    ['expired', { expiresAt: Math.floor(Date.now() / 1000) - 60 }, /expired/],
    ['without exp', { expiresAt: null }, /exp/],
    ['from another issuer', { issuer: 'https://evil.test/' }, /iss/],
    ['for another audience', { audience: 'someone-else' }, /aud/],
    ['with a bad signature', { secret: 'another-secret-of-at-least-32-bytes!' }, /signature/],
    ['without a tenant claim', { claims: { tenant_id: undefined } }, /tenant_id/],
    ['with a non-string tenant claim', { claims: { tenant_id: 42 } }, /tenant_id/],
    ['with an empty subject', { subject: '' }, /sub/],
    ['with a subject over 255 characters', { subject: 'u'.repeat(256) }, /sub/],
  ])('refuses a token %s', async (_label, spec: TokenSpec, detail) => {
    const error = await auth.authenticate(bearer(await hsToken(spec))).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'unauthenticated' });
    expect((error as Error).message).toMatch(detail);
  });

  it('gives every tenant and subject a credential of its own, even where a tenant claim holds a colon', async () => {
    const principals = await Promise.all(
      [
        { tenant_id: 'acme', subject: 'ops:bob' },
        { tenant_id: 'acme:ops', subject: 'bob' },
        { tenant_id: 'acme', subject: 'bob' },
      ].map(async ({ tenant_id, subject }) =>
        auth.authenticate(bearer(await hsToken({ claims: { tenant_id }, subject }))),
      ),
    );
    const ids = principals.map((p) => p.credential_id);
    expect(new Set(ids).size).toBe(3);
    expect(ids).toEqual(['jwt:acme:ops%3Abob', 'jwt:acme%3Aops:bob', 'jwt:acme:bob']);
  });

  it('makes each token without a subject a credential of its own: no shared replay, no shared rate', async () => {
    const [alice, bob] = await Promise.all(
      ['alice', 'bob'].map(async (email) => hsToken({ claims: { email }, subject: null })),
    );
    const [a, b, aAgain] = await Promise.all([alice, bob, alice].map((t) => auth.authenticate(bearer(t!))));
    expect(a!.credential_id).toMatch(/^jwt:tnt_acme:#[\w-]{22}$/);
    expect(b!.credential_id).not.toBe(a!.credential_id);
    expect(aAgain!.credential_id).toBe(a!.credential_id);
  });

  it('tolerates small clock skew only', async () => {
    const justExpired = Math.floor(Date.now() / 1000) - 2;
    await expect(auth.authenticate(bearer(await hsToken({ expiresAt: justExpired })))).resolves.toMatchObject({
      kind: 'jwt',
    });
  });

  it.each([
    ['a space-separated string', 'admin  read bogus', ['read', 'admin']],
    ['an array', ['write', 'nope', 'write'], ['write']],
    ['nothing usable', 17, []],
  ])('parses scopes from %s', async (_label, scope, expected) => {
    const principal = await auth.authenticate(bearer(await hsToken({ claims: { scope } })));
    expect(principal.scopes).toEqual(expected);
  });

  it('reads configurable claim names', async () => {
    const custom = authConfigSchema.parse({
      JWT_SECRET: SECRET,
      JWT_ISSUER: ISSUER,
      JWT_AUDIENCE: AUDIENCE,
      JWT_TENANT_CLAIM: 'org',
      JWT_SCOPES_CLAIM: 'permissions',
    });
    const verifier = new JwtVerifier(custom);
    const token = await hsToken({
      claims: { org: 'tnt_org', permissions: ['admin'], tenant_id: 'tnt_ignored', scope: 'read' },
    });
    await expect(verifier.verify(token)).resolves.toMatchObject({ tenant_id: 'tnt_org', scopes: ['admin'] });
  });

  it('refuses every bearer token when JWT is not configured', async () => {
    const noJwt = new AuthService(world.authenticator(cache), new JwtVerifier(authConfigSchema.parse({})));
    const error = await noJwt.authenticate(bearer(await hsToken())).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'unauthenticated' });
    expect((error as Error).message).toMatch(/not accepted/);
  });
});
