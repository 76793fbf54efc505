import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';
import { authConfigSchema } from '../src/auth/auth.config.js';
import { JwtVerifier } from '../src/auth/jwt-verifier.js';
import { rejectionCode } from './auth-fixtures.js';

const ISSUER = 'https://idp.test/';
const AUDIENCE = 'conduit-api';

interface SigningKey {
  alg: string;
  kid: string;
  privateKey: CryptoKey;
  jwk: JWK;
}

async function signingKey(alg: string, kid: string): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair(alg);
  return { alg, kid, privateKey, jwk: { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' } };
}

function sign(key: SigningKey, claims: Record<string, unknown> = {}): Promise<string> {
  return new SignJWT({ tenant_id: 'tnt_jwks', scope: 'read', ...claims })
    .setProtectedHeader({ alg: key.alg, kid: key.kid })
    .setIssuer(ISSUER)
    .setAudience(AUDIENCE)
    .setExpirationTime('5m')
    .sign(key.privateKey);
}

let server: Server;
let jwksUrl: string;
let rsa: SigningKey;
let ec: SigningKey;
let verifier: JwtVerifier;

beforeAll(async () => {
  rsa = await signingKey('RS256', 'rsa-1');
  ec = await signingKey('ES256', 'ec-1');
  const body = JSON.stringify({ keys: [rsa.jwk, ec.jwk] });
  server = createServer((req, res) => {
    if (req.url !== '/.well-known/jwks.json') return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'application/json' }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  jwksUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/.well-known/jwks.json`;
  verifier = new JwtVerifier(
    authConfigSchema.parse({ JWT_JWKS_URL: jwksUrl, JWT_ISSUER: ISSUER, JWT_AUDIENCE: AUDIENCE }),
  );
});

afterAll(async () => {
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
});

describe('bearer tokens verified against a JWKS', () => {
  it('accepts RS256 and ES256 tokens signed by a published key', async () => {
    await expect(verifier.verify(await sign(rsa))).resolves.toMatchObject({
      tenant_id: 'tnt_jwks',
      scopes: ['read'],
      kind: 'jwt',
    });
    await expect(verifier.verify(await sign(ec, { scope: ['admin'] }))).resolves.toMatchObject({ scopes: ['admin'] });
  });

  it('refuses a token signed by an unpublished key', async () => {
    const stranger = await signingKey('RS256', 'rsa-1');
    expect(await rejectionCode(verifier.verify(await sign(stranger)))).toBe('unauthenticated');
    const unknownKid = await signingKey('ES256', 'nobody');
    expect(await rejectionCode(verifier.verify(await sign(unknownKid)))).toBe('unauthenticated');
  });

  it('refuses HS256 tokens when only a JWKS is configured', async () => {
    const token = await new SignJWT({ tenant_id: 'tnt_jwks' })
      .setProtectedHeader({ alg: 'HS256' })
      .setIssuer(ISSUER)
      .setAudience(AUDIENCE)
      .setExpirationTime('5m')
      .sign(new TextEncoder().encode('x'.repeat(32)));
    expect(await rejectionCode(verifier.verify(token))).toBe('unauthenticated');
  });

  it('answers service_unavailable when the key set cannot be fetched', async () => {
    const broken = new JwtVerifier(
      authConfigSchema.parse({
        JWT_JWKS_URL: jwksUrl.replace('jwks.json', 'missing.json'),
        JWT_ISSUER: ISSUER,
        JWT_AUDIENCE: AUDIENCE,
      }),
    );
    expect(await rejectionCode(broken.verify(await sign(rsa)))).toBe('service_unavailable');
  });
});
