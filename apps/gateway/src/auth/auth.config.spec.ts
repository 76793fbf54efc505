import { authConfigSchema, DEFAULT_BOOTSTRAP_TENANT_ID } from './auth.config.js';
import { isId } from '@conduit/contracts';

describe('auth config', () => {
  it('applies defaults', () => {
    expect(authConfigSchema.parse({})).toEqual({
      BOOTSTRAP_TENANT_ID: DEFAULT_BOOTSTRAP_TENANT_ID,
      JWT_TENANT_CLAIM: 'tenant_id',
      JWT_SCOPES_CLAIM: 'scope',
      JWT_CLOCK_TOLERANCE_S: 5,
    });
    expect(isId('tenant', DEFAULT_BOOTSTRAP_TENANT_ID)).toBe(true);
  });

  it('requires issuer and audience once a JWT key source is set', () => {
    const result = authConfigSchema.safeParse({ JWT_JWKS_URL: 'https://idp.test/jwks.json' });
    expect(result.success).toBe(false);
    expect(result.error?.issues.map((i) => i.path.join('.')).sort()).toEqual(['JWT_AUDIENCE', 'JWT_ISSUER']);
    expect(authConfigSchema.safeParse({ JWT_SECRET: 's'.repeat(32), JWT_ISSUER: 'i', JWT_AUDIENCE: 'a' }).success).toBe(
      true,
    );
  });

  it('rejects weak or malformed settings', () => {
    for (const env of [
      { BOOTSTRAP_API_KEY: 'too-short' },
      { BOOTSTRAP_TENANT_ID: 'acme' },
      { JWT_SECRET: 'short', JWT_ISSUER: 'i', JWT_AUDIENCE: 'a' },
      { JWT_JWKS_URL: 'ftp://idp.test/jwks', JWT_ISSUER: 'i', JWT_AUDIENCE: 'a' },
      { JWT_CLOCK_TOLERANCE_S: '-1' },
    ]) {
      expect(authConfigSchema.safeParse(env).success).toBe(false);
    }
  });
});
