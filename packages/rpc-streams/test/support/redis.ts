// Shared by the integration tests: a live Redis, a per-suite prefix, replica processes, polling.
import { type ChildProcess, fork } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';

export const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/** Fails loudly when Redis is not there, instead of letting every test time out. */
export async function connectRedis(): Promise<Redis> {
  const redis = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1, retryStrategy: () => null });
  try {
    await redis.connect();
    await redis.ping();
  } catch (err) {
    redis.disconnect();
    throw new Error(`Redis is required at ${REDIS_URL} for these tests: ${String(err)}`, { cause: err });
  }
  return redis;
}

export function testPrefix(): string {
  return `test:rpc-streams:${randomUUID()}:`;
}

export async function deleteKeys(redis: Redis, prefix: string): Promise<void> {
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
    cursor = next;
    if (keys.length > 0) await redis.del(...keys);
  } while (cursor !== '0');
}

export async function waitFor(
  condition: () => Promise<boolean> | boolean,
  timeoutMs: number,
  what: string,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

const replicaScript = fileURLToPath(new URL('./fixtures/replica.mjs', import.meta.url));
const builtEntry = fileURLToPath(new URL('../dist/index.js', import.meta.url));

export interface ReplicaProcess {
  name: string;
  child: ChildProcess;
  exited: Promise<void>;
}

/** Forks test/fixtures/replica.mjs (which imports the built dist) and resolves once it listens. */
export async function startReplica(name: string, prefix: string, claimIdleMs: number): Promise<ReplicaProcess> {
  if (!existsSync(builtEntry)) throw new Error('dist/ is missing: run `npm run build -w @conduit/rpc-streams` first');
  const child = fork(replicaScript, [], {
    env: { ...process.env, REDIS_URL, PREFIX: prefix, REPLICA: name, CLAIM_IDLE_MS: String(claimIdleMs) },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`replica ${name} did not start within 15 s`)), 15_000);
    child.once('message', () => {
      clearTimeout(timer);
      resolve();
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`replica ${name} exited with code ${String(code)} before it was ready`));
    });
  });
  return { name, child, exited };
}

export async function killReplica(replica: ReplicaProcess, signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
  if (replica.child.exitCode === null && replica.child.signalCode === null) replica.child.kill(signal);
  await replica.exited;
}

/** Pending (read but unacked) entries of a group; 0 when the stream or group is gone. */
export async function pendingCount(redis: Redis, stream: string, group: string): Promise<number> {
  try {
    const summary = (await redis.xpending(stream, group)) as [number, ...unknown[]];
    return Number(summary[0]);
  } catch {
    return 0;
  }
}
