import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { Redis } from 'ioredis';
import { deleteKeys } from '../redis/redis-keys.js';
import { freePort } from '../servers/free-port.js';
import { waitFor } from '../waits/wait-for.js';
import { platformPgAdminUrl } from './platform-postgres.js';

// packages/testing/dist/stack/stack.js -> the repository root.
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../../..');

/**
 * Where the stack's servers are. PostgreSQL: a server of its own (platform-postgres.ts), never the one the suites'
 * connectors use. Redis: E2E_REDIS_URL, else the machine's.
 */
export interface StackServers {
  /** A PostgreSQL URL of a role that may create databases; the stack's database is created beside its database. */
  pgAdminUrl?: string;
  redisUrl?: string;
}

async function serversOf(servers: StackServers): Promise<Required<StackServers>> {
  return {
    pgAdminUrl: servers.pgAdminUrl ?? (await platformPgAdminUrl()),
    redisUrl: servers.redisUrl ?? process.env.E2E_REDIS_URL ?? 'redis://127.0.0.1:6379',
  };
}

export type ServiceName = 'gateway' | 'catalog' | 'scheduler' | 'executor' | 'monitoring' | 'webhook-dispatcher';

export interface ServiceProcess {
  name: ServiceName;
  child: ChildProcess;
  port: number;
  /** Where its /metrics is: its port, but for the gateway, which keeps it off the public port (GATEWAY_METRICS_PORT). */
  metricsPort: number;
  /** Every line the process wrote, stdout and stderr. */
  output: string[];
}

export interface Stack {
  baseUrl: string;
  bootstrapKey: string;
  jwtSecret: string;
  secretsKey: string;
  databaseUrl: string;
  redisUrl: string;
  redisPrefix: string;
  env: Record<string, string>;
  processes: ServiceProcess[];
  /** Everything every service has logged so far. */
  logs(): string;
  /** Starts one more process of a service (e.g. a second catalog replica). */
  startService(name: ServiceName, extraEnv?: Record<string, string>): Promise<ServiceProcess>;
  stop(): Promise<void>;
}

async function assertServersUp({ pgAdminUrl, redisUrl }: Required<StackServers>): Promise<void> {
  const client = new pg.Client({ connectionString: pgAdminUrl, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
  } catch (err) {
    throw new Error(`PostgreSQL is not reachable at ${pgAdminUrl}: ${String(err)}. Start it (see README).`, {
      cause: err,
    });
  } finally {
    await client.end().catch(() => undefined);
  }
  const redis = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  try {
    await redis.connect();
    await redis.ping();
  } catch (err) {
    throw new Error(`Redis is not reachable at ${redisUrl}: ${String(err)}. Start it (see README).`, { cause: err });
  } finally {
    redis.disconnect();
  }
}

async function adminQuery(pgAdminUrl: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: pgAdminUrl });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/**
 * The whole system as a client meets it: every service its own Node process, on free ports, against the real
 * PostgreSQL (a database of its own) and Redis (a key prefix of its own), so it runs beside a developer's stack.
 */
export async function startStack(extraEnv: Record<string, string> = {}, servers: StackServers = {}): Promise<Stack> {
  const { pgAdminUrl, redisUrl } = await serversOf(servers);
  await assertServersUp({ pgAdminUrl, redisUrl });
  const suffix = randomUUID().replace(/-/g, '').slice(0, 12);
  const database = `conduit_e2e_${suffix}`;
  await adminQuery(pgAdminUrl, `CREATE DATABASE ${database}`);
  const databaseUrl = pgAdminUrl.replace(/\/[^/]*$/, `/${database}`);
  const bootstrapKey = `cnd_bootstrap_${randomBytes(24).toString('hex')}`;
  const jwtSecret = randomBytes(32).toString('hex');
  const secretsKey = randomBytes(32).toString('hex');
  const redisPrefix = `e2e-${suffix}:`;
  const env: Record<string, string> = {
    NODE_ENV: 'test',
    LOG_LEVEL: 'info',
    DATABASE_URL: databaseUrl,
    REDIS_URL: redisUrl,
    REDIS_PREFIX: redisPrefix,
    BOOTSTRAP_API_KEY: bootstrapKey,
    SECRETS_KEY: secretsKey,
    JWT_SECRET: jwtSecret,
    JWT_ISSUER: 'https://issuer.e2e.test',
    JWT_AUDIENCE: 'conduit-e2e',
    ...extraEnv,
  };
  const processes: ServiceProcess[] = [];

  const startService = async (name: ServiceName, more: Record<string, string> = {}): Promise<ServiceProcess> => {
    const port = await freePort();
    const portVar = `${name.toUpperCase().replace(/-/g, '_')}_PORT`;
    const ports: Record<string, string> = { [portVar]: String(port) };
    if (name === 'gateway') ports.GATEWAY_METRICS_PORT = String(await freePort());
    // As the launchers do (docs/operations.md, Sizing executors): a libuv thread per run slot, four more.
    const threads =
      name === 'executor' && !env.UV_THREADPOOL_SIZE && !more.UV_THREADPOOL_SIZE
        ? { UV_THREADPOOL_SIZE: String(Number(more.EXECUTOR_CONCURRENCY ?? env.EXECUTOR_CONCURRENCY ?? 8) + 4) }
        : {};
    const child = spawn(process.execPath, [resolve(ROOT, `apps/${name}/dist/main.js`)], {
      env: { PATH: process.env.PATH ?? '', ...env, ...threads, ...ports, ...more },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    const metricsPort = Number(more.GATEWAY_METRICS_PORT ?? ports.GATEWAY_METRICS_PORT ?? port);
    const proc: ServiceProcess = { name, child, port, metricsPort, output: [] };
    const collect = (chunk: Buffer) => proc.output.push(chunk.toString('utf8'));
    child.stdout?.on('data', collect);
    child.stderr?.on('data', collect);
    processes.push(proc);
    await waitFor(
      async () => {
        if (child.exitCode !== null) throw new Error(`${name} exited with ${child.exitCode}: ${proc.output.join('')}`);
        const res = await fetch(`http://127.0.0.1:${port}/readyz`);
        return res.status === 200;
      },
      { what: `${name} to be ready`, timeoutMs: 20_000, intervalMs: 100 },
    );
    return proc;
  };

  const stop = async (): Promise<void> => {
    await Promise.all(processes.map((p) => stopProcess(p.child)));
    await adminQuery(pgAdminUrl, `DROP DATABASE IF EXISTS ${database} WITH (FORCE)`).catch(() => undefined);
    await deleteStackKeys(redisUrl, redisPrefix).catch(() => undefined);
  };

  try {
    // Every service applies its own migrations at boot; the gateway comes last so it finds them all answering.
    await startService('catalog');
    await startService('scheduler');
    await startService('executor');
    await startService('monitoring');
    await startService('webhook-dispatcher');
    const gateway = await startService('gateway');
    return {
      baseUrl: `http://127.0.0.1:${gateway.port}`,
      bootstrapKey,
      jwtSecret,
      secretsKey,
      databaseUrl,
      redisUrl,
      redisPrefix,
      env,
      processes,
      logs: () => processes.map((p) => p.output.join('')).join('\n'),
      startService,
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}

export async function stopProcess(child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  try {
    process.kill(-child.pid, signal);
  } catch {
    return;
  }
  const timer = setTimeout(() => {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // already gone
    }
  }, 5000);
  await exited;
  clearTimeout(timer);
}

async function deleteStackKeys(redisUrl: string, prefix: string): Promise<void> {
  // One attempt: the stack's own Redis may be gone (a fault test killed it) and stop() must not wait for it.
  const redis = new Redis(redisUrl, { maxRetriesPerRequest: 1, retryStrategy: () => null });
  redis.on('error', () => undefined);
  try {
    await deleteKeys(redis, prefix);
  } finally {
    redis.disconnect();
  }
}
