import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import type { Redis } from 'ioredis';
import { RedisStreamsClient, rpcCall } from '@conduit/rpc-streams';
import type { Project, RpcReply } from '@conduit/contracts';
import { freePort, requirePostgres, waitFor } from '@conduit/testing';
import { DATABASE_URL, newTenant, rpcCtx } from './support/catalog-db.js';
import { deleteKeys, REDIS_URL, requireRedis, testPrefix } from './support/redis.js';

const mainJs = fileURLToPath(new URL('../dist/main.js', import.meta.url));

interface Started {
  child: ChildProcess;
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stderr: () => string;
}

/** The built service as a process of its own group, so it is stopped by its id and nothing else. */
function startCatalog(env: Record<string, string>): Started {
  const child = spawn(process.execPath, [mainJs], {
    env: { ...process.env, LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
    detached: true,
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  return { child, exit, stderr: () => stderr };
}

async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>(
    (_, reject) => (timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms: ${what}`)), ms)),
  );
  try {
    return await Promise.race([promise, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

async function waitForReady(url: string, timeoutMs: number): Promise<void> {
  await waitFor(async () => (await fetch(url)).status === 200, {
    what: `${url} to answer 200`,
    timeoutMs,
    intervalMs: 100,
  });
}

let redis: Redis;
const prefix = testPrefix();
const schema = `catalog_boot_${randomUUID().replace(/-/g, '')}`;
const running: Started[] = [];

beforeAll(async () => {
  if (!existsSync(mainJs)) throw new Error('dist/main.js is missing: run `npm run build -w @conduit/catalog` first');
  await requirePostgres('catalog');
  redis = await requireRedis();
});

afterAll(async () => {
  for (const s of running) {
    if (s.child.exitCode === null && s.child.signalCode === null && s.child.pid) process.kill(-s.child.pid, 'SIGKILL');
  }
  const client = new pg.Client({ connectionString: DATABASE_URL });
  await client.connect();
  await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await client.end();
  if (redis) {
    await deleteKeys(redis, prefix);
    redis.disconnect();
  }
});

describe('catalog process', () => {
  it('stops at once with one clear line when the configuration is wrong', async () => {
    const started = startCatalog({ SECRETS_KEY: 'too-short', CATALOG_DB_SCHEMA: schema });
    running.push(started);
    const { code } = await within(started.exit, 15_000, 'exit on bad config');
    expect(code).toBe(1);
    const lines = started.stderr().trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^catalog: invalid configuration: SECRETS_KEY: /);
    expect(lines[0]).not.toContain('too-short');
  });

  it('migrates, serves /readyz and RPC, and shuts down on SIGTERM', async () => {
    const port = await freePort();
    const started = startCatalog({
      DATABASE_URL,
      REDIS_URL,
      REDIS_PREFIX: prefix,
      CATALOG_PORT: String(port),
      CATALOG_DB_SCHEMA: schema,
      SECRETS_KEY: randomBytes(32).toString('hex'),
    });
    running.push(started);
    await waitForReady(`http://127.0.0.1:${port}/readyz`, 20_000);
    expect(await (await fetch(`http://127.0.0.1:${port}/readyz`)).json()).toEqual({
      status: 'ok',
      checks: { db: 'ok', redis: 'ok' },
    });

    const client = new RedisStreamsClient({ url: REDIS_URL, prefix, timeoutMs: 10_000 });
    try {
      const reply = await rpcCall<RpcReply<Project>>(client, 'catalog.projects.create', {
        ctx: rpcCtx(newTenant()),
        data: { body: { name: 'booted' } },
      });
      expect(reply).toMatchObject({ ok: true, data: { name: 'booted' } });
    } finally {
      await client.close();
    }

    if (!started.child.pid) throw new Error('no pid');
    process.kill(started.child.pid, 'SIGTERM');
    const exit = await within(started.exit, 10_000, 'shutdown on SIGTERM');
    expect(exit.code === 0 || exit.signal === 'SIGTERM').toBe(true);
  });
});
