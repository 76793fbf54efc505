import { describe, expect, it } from '@jest/globals';
import { z } from 'zod';
import { baseEnv, loadConfig } from '../config.js';
import { checkServiceConfig } from './service-config.js';

const schema = z.object({
  ...baseEnv,
  SECRETS_KEY: z.string().length(64),
  BOOTSTRAP_API_KEY: z.string().min(24).optional(),
});
const load = (env: NodeJS.ProcessEnv) => loadConfig(schema, env);
const freshKey = 'ab'.repeat(32);
/** The fallback docker-compose.yml used to ship. */
const composeKey = '000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f';

describe('checkServiceConfig', () => {
  it('passes fresh secrets in production, the default', () => {
    const checked = checkServiceConfig('catalog', load, {
      SECRETS_KEY: freshKey,
      DATABASE_URL: 'postgres://conduit:s3cr3t-x@db:5432/conduit',
    });
    expect(checked).toHaveProperty('config.SECRETS_KEY', freshKey);
    expect(checked).toHaveProperty('config.CONDUIT_ENV', 'production');
  });

  it('refuses the compose fallback key with one line naming the variable and how to make one, never the value', () => {
    const checked = checkServiceConfig('catalog', load, { SECRETS_KEY: composeKey });
    expect(checked).toEqual({
      line: expect.stringMatching(
        /^catalog: refusing to start outside local development .*SECRETS_KEY .*openssl rand -hex 32/,
      ),
    });
    expect(JSON.stringify(checked)).not.toContain(composeKey);
    expect(JSON.stringify(checked)).not.toContain('\n');
  });

  it('refuses the Kubernetes placeholders, in a URL password too, and names each variable', () => {
    const checked = checkServiceConfig('gateway', load, {
      SECRETS_KEY: 'change-me-to-64-hex-characters-change-me-to-64-hex-characters-0000',
      BOOTSTRAP_API_KEY: 'change-me-at-least-24-characters',
      DATABASE_URL: 'postgres://conduit:change-me@postgres:5432/conduit',
    });
    if (!('line' in checked)) throw new Error('expected a refusal');
    expect(checked.line).toContain('BOOTSTRAP_API_KEY holds a value published');
    expect(checked.line).toContain('DATABASE_URL holds a value published');
    expect(checked.line).toContain('SECRETS_KEY holds a value published');
    expect(checked.line).not.toContain('change-me');
  });

  it("refuses the compose file's old PostgreSQL password", () => {
    const checked = checkServiceConfig('scheduler', load, {
      SECRETS_KEY: freshKey,
      DATABASE_URL: 'postgres://postgres:conduit@postgres:5432/conduit',
    });
    expect(checked).toEqual({ line: expect.stringContaining('DATABASE_URL holds a value published') });
  });

  it('lets well-known secrets through in local development (CONDUIT_ENV=development)', () => {
    const checked = checkServiceConfig('catalog', load, { SECRETS_KEY: composeKey, CONDUIT_ENV: 'development' });
    expect(checked).toHaveProperty('config.CONDUIT_ENV', 'development');
  });

  it('reports a missing secret with how to generate one, and a misspelt CONDUIT_ENV', () => {
    expect(checkServiceConfig('catalog', load, {})).toEqual({
      line: 'catalog: invalid configuration: SECRETS_KEY: required (generate one with `openssl rand -hex 32` (compose: `npm run generate-env` writes .env))',
    });
    expect(checkServiceConfig('catalog', load, { SECRETS_KEY: freshKey, CONDUIT_ENV: 'dev' })).toEqual({
      line: expect.stringMatching(/^catalog: invalid configuration: CONDUIT_ENV: /),
    });
  });
});
