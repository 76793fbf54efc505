/**
 * Issue 21 items 4 and 5: a built service that cannot start says why in one line and exits 1, at once: Redis on a
 * closed port, a database host that does not resolve, its port taken, a missing or well-known secret. And a developer's
 * machine (CONDUIT_ENV=development) still starts with the compose file's old fallback key.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:net';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { stopProcess } from '@conduit/testing';
import { closedPort, freePort, waitFor } from './support/helpers.js';
import { createTargetDatabase, type TargetDatabase } from './support/target-database.js';

const ROOT = resolve(fileURLToPath(new URL('.', import.meta.url)), '..');
const PG_ADMIN_URL = process.env.E2E_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const REDIS_URL = process.env.E2E_REDIS_URL ?? 'redis://127.0.0.1:6379';
/** The SECRETS_KEY fallback docker-compose.yml shipped until issue 21. */
const COMPOSE_FALLBACK_KEY = '000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f';

interface Ended {
  code: number | null;
  stdout: string;
  stderr: string;
  ms: number;
}

/** Runs a built service with exactly `env` (and PATH) until it exits; fails if it is still running after 10 s. */
async function runUntilExit(service: string, env: Record<string, string>): Promise<Ended> {
  const started = Date.now();
  const child = spawn(process.execPath, [resolve(ROOT, `apps/${service}/dist/main.js`)], {
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const exited = new Promise<number | null>((done) => child.once('close', (code) => done(code)));
  const timer = setTimeout(() => void stopProcess(child, 'SIGKILL'), 10_000);
  const code = await exited;
  clearTimeout(timer);
  return { code, stdout, stderr, ms: Date.now() - started };
}

/** The one line of a failed start, checked: nothing else printed, exit code 1, within a few seconds. */
function oneLine(ended: Ended): string {
  expect({ code: ended.code, stdout: ended.stdout }).toEqual({ code: 1, stdout: '' });
  const lines = ended.stderr.split('\n').filter((l) => l !== '');
  expect(lines).toHaveLength(1);
  expect(ended.ms).toBeLessThan(8000);
  return lines[0]!;
}

const freshKey = () => randomBytes(32).toString('hex');

describe('a service that cannot start says why in one line and exits 1', () => {
  it('Redis on a closed port: names Redis, its address without the password, and what to check', async () => {
    const port = await closedPort();
    const line = oneLine(
      await runUntilExit('catalog', {
        DATABASE_URL: PG_ADMIN_URL,
        REDIS_URL: `redis://:hunter2@127.0.0.1:${port}`,
        CATALOG_PORT: '0',
        SECRETS_KEY: freshKey(),
      }),
    );
    expect(line).toBe(
      `catalog: failed to start: Redis at redis://127.0.0.1:${port} refused the connection: check that Redis is running there and the host and port in REDIS_URL`,
    );
  });

  it('a database host that does not resolve: names PostgreSQL and the host', async () => {
    const line = oneLine(
      await runUntilExit('scheduler', {
        DATABASE_URL: 'postgres://conduit:hunter2@db.conduit-e2e.invalid:5432/conduit',
        REDIS_URL,
        SCHEDULER_PORT: '0',
      }),
    );
    expect(line).toBe(
      'scheduler: failed to start: PostgreSQL host "db.conduit-e2e.invalid" does not resolve (DATABASE_URL is postgres://conduit@db.conduit-e2e.invalid:5432/conduit): check the host name in DATABASE_URL and DNS',
    );
  });

  it('its port busy: names the port, the host and the variable that moves it', async () => {
    const port = await freePort();
    const holder: Server = createServer();
    await new Promise<void>((done) => holder.listen(port, '127.0.0.1', done));
    try {
      const line = oneLine(
        await runUntilExit('gateway', {
          DATABASE_URL: PG_ADMIN_URL,
          REDIS_URL,
          GATEWAY_HOST: '127.0.0.1',
          GATEWAY_PORT: String(port),
          GATEWAY_METRICS_PORT: '0',
          SECRETS_KEY: freshKey(),
        }),
      );
      expect(line).toBe(
        `gateway: failed to start: port ${port} on 127.0.0.1 (GATEWAY_PORT) is already in use: stop the process that holds it, or set GATEWAY_PORT to a free port`,
      );
    } finally {
      await new Promise<void>((done) => holder.close(() => done()));
    }
  });

  it('a missing required variable: names it and how to generate one', async () => {
    const line = oneLine(await runUntilExit('executor', { REDIS_URL, EXECUTOR_PORT: '0' }));
    expect(line).toBe(
      'executor: invalid configuration: SECRETS_KEY: required (generate one with `openssl rand -hex 32` (compose: `npm run generate-env` writes .env))',
    );
  });

  it("a well-known secret outside local development (the k8s Secret's placeholders): names each variable, never the value", async () => {
    const line = oneLine(
      await runUntilExit('webhook-dispatcher', {
        DATABASE_URL: 'postgres://conduit:change-me@127.0.0.1:5432/conduit',
        REDIS_URL,
        SECRETS_KEY: 'change-me-to-64-hex-characters-change-me-to-64-hex-characters-0000',
      }),
    );
    expect(line).toMatch(
      /^webhook-dispatcher: refusing to start outside local development \(CONDUIT_ENV is not development\): /,
    );
    expect(line).toContain(
      'SECRETS_KEY holds a value published in the Conduit repository: generate one with `openssl rand -hex 32`',
    );
    expect(line).toContain('DATABASE_URL holds a value published in the Conduit repository');
    expect(line).not.toContain('change-me');
  });
});

describe('local development (CONDUIT_ENV=development)', () => {
  // The catalog's own database, and its own prefix of Redis keys.
  let database: TargetDatabase;
  let prefix: string;
  beforeAll(async () => {
    database = await createTargetDatabase();
    prefix = `e2e-${database.name}:`;
  });
  afterAll(async () => {
    await database?.drop();
    if (!prefix) return;
    const redis = new Redis(REDIS_URL);
    try {
      const keys = await redis.keys(`${prefix}*`);
      if (keys.length > 0) await redis.del(...keys);
    } finally {
      redis.disconnect();
    }
  });

  it("starts with the compose file's old fallback key, which production refuses", async () => {
    const env = {
      DATABASE_URL: database.url,
      REDIS_URL,
      REDIS_PREFIX: prefix,
      SECRETS_KEY: COMPOSE_FALLBACK_KEY,
    };
    const refused = oneLine(await runUntilExit('catalog', { ...env, CATALOG_PORT: '0' }));
    expect(refused).toMatch(
      /^catalog: refusing to start outside local development .*SECRETS_KEY holds a value published/,
    );

    const port = await freePort();
    const child = spawn(process.execPath, [resolve(ROOT, 'apps/catalog/dist/main.js')], {
      env: { PATH: process.env.PATH ?? '', ...env, CONDUIT_ENV: 'development', CATALOG_PORT: String(port) },
      stdio: 'ignore',
      detached: true,
    });
    try {
      await waitFor(
        async () => {
          if (child.exitCode !== null) throw new Error(`catalog exited with ${child.exitCode}`);
          return (await fetch(`http://127.0.0.1:${port}/readyz`)).status === 200;
        },
        { what: 'the catalog to be ready', timeoutMs: 20_000 },
      );
    } finally {
      await stopProcess(child);
    }
  });
});
