/**
 * Issue 21 item 4: nothing the repository ships lets a deployment start with a secret anyone can read. Compose takes
 * its secrets from the environment or .env with no fallback (`npm run generate-env` writes fresh ones), and the
 * Kubernetes Secret's placeholders are values every service refuses outside local development.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { wellKnownSecrets } from '../../packages/service-kit/dist/startup/well-known-secrets.js';
import { FROM_ENVIRONMENT, interpolateDefaults, loadCompose } from './support/compose.js';
import { find, render, type K8sObject } from './support/kustomize.js';
import { ROOT, readRepoFile } from './support/repo.js';

const COMPOSE_SECRETS = ['SECRETS_KEY', 'BOOTSTRAP_API_KEY', 'POSTGRES_PASSWORD'];

/** A .env file's `NAME=value` lines, as Compose reads these simple ones. */
function parse(text: string): Record<string, string> {
  return Object.fromEntries(
    text
      .split('\n')
      .filter((l) => /^[A-Z0-9_]+=/.test(l))
      .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
  );
}

describe('docker-compose.yml', () => {
  const compose = loadCompose();

  it.each(COMPOSE_SECRETS)('%s comes from the environment or .env, never from a fallback', (name) => {
    const uses = [...readRepoFile('docker-compose.yml').matchAll(new RegExp(`\\$\\{${name}(:?[-?])?[^}]*\\}`, 'g'))];
    expect(uses.length).toBeGreaterThan(0);
    for (const [use, operator] of uses) expect([use, operator]).toEqual([use, ':?']);
  });

  it('no service gets a well-known secret, and none runs as local development', () => {
    for (const [name, service] of Object.entries(compose.services)) {
      const env = Object.fromEntries(
        Object.entries(service.environment ?? {}).map(([k, v]) => [k, interpolateDefaults(String(v ?? ''))]),
      );
      expect([name, wellKnownSecrets(env)]).toEqual([name, []]);
      expect([name, env.CONDUIT_ENV ?? 'production']).toEqual([name, 'production']);
    }
    expect(
      compose.services.gateway?.environment?.BOOTSTRAP_API_KEY &&
        interpolateDefaults(String(compose.services.gateway.environment.BOOTSTRAP_API_KEY)),
    ).toBe(FROM_ENVIRONMENT);
  });
});

describe('npm run generate-env', () => {
  const dir = mkdtempSync(join(tmpdir(), 'conduit-env-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const generate = (file: string) =>
    execFileSync(process.execPath, [resolve(ROOT, 'scripts/generate-env.mjs'), file], { encoding: 'utf8' });

  it('writes fresh values compose accepts and services start with, readable by the owner only', () => {
    const file = join(dir, 'fresh.env');
    generate(file);
    const env = parse(readFileSync(file, 'utf8'));
    expect(Object.keys(env).sort()).toEqual([...COMPOSE_SECRETS].sort());
    expect(env.SECRETS_KEY).toMatch(/^[0-9a-f]{64}$/);
    expect(env.BOOTSTRAP_API_KEY!.length).toBeGreaterThanOrEqual(24);
    expect(env.POSTGRES_PASSWORD).toMatch(/^[0-9a-f]{32}$/);
    const databaseUrl = `postgres://postgres:${env.POSTGRES_PASSWORD}@postgres:5432/conduit`;
    expect(wellKnownSecrets({ ...env, DATABASE_URL: databaseUrl })).toEqual([]);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    // Another run makes other values.
    const other = join(dir, 'other.env');
    generate(other);
    expect(parse(readFileSync(other, 'utf8')).SECRETS_KEY).not.toBe(env.SECRETS_KEY);
  });

  it('keeps what the file already has (a new SECRETS_KEY would lose every stored secret) and adds what is missing', () => {
    const file = join(dir, 'existing.env');
    writeFileSync(file, 'LOG_LEVEL=debug\nSECRETS_KEY=' + 'ab'.repeat(32));
    generate(file);
    const env = parse(readFileSync(file, 'utf8'));
    expect(env.SECRETS_KEY).toBe('ab'.repeat(32));
    expect(env.LOG_LEVEL).toBe('debug');
    expect(Object.keys(env).sort()).toEqual(['BOOTSTRAP_API_KEY', 'LOG_LEVEL', 'POSTGRES_PASSWORD', 'SECRETS_KEY']);
    const before = readFileSync(file, 'utf8');
    expect(generate(file)).toMatch(/nothing changed/);
    expect(readFileSync(file, 'utf8')).toBe(before);
  });
});

describe('k8s/base conduit-secrets', () => {
  it('holds placeholders every service refuses to start with (outside CONDUIT_ENV=development), and nothing sets development', () => {
    const objects = render('k8s/base');
    const secret = find(objects, 'Secret', 'conduit-secrets') as K8sObject & { stringData: Record<string, string> };
    expect(wellKnownSecrets(secret.stringData).sort()).toEqual(['BOOTSTRAP_API_KEY', 'DATABASE_URL', 'SECRETS_KEY']);
    const config = find(objects, 'ConfigMap', 'conduit-config') as K8sObject & { data: Record<string, string> };
    expect(config.data.CONDUIT_ENV ?? 'production').toBe('production');
  });
});
