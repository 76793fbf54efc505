// An in-process executor runtime on the suite's prefix, with short lock settings.
import { randomBytes } from 'node:crypto';
import { fork, type ChildProcess, type StdioOptions } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import { ExecutorRuntime } from '../../src/runs/executor-runtime.js';
import { runMemory } from '../../src/data/run-memory.js';
import { DATA_DIR, RUN_MEMORY_BYTES } from './engine-harness.js';
import { REDIS_URL } from './redis.js';
import { DATABASE_URL } from './postgres.js';

/** The key the suite's executors and catalog stub share: configs are answered sealed with it, as the catalog does. */
export const TEST_SECRETS_KEY = randomBytes(32);

export async function startExecutor(prefix: string, lockMs = 2000): Promise<ExecutorRuntime> {
  const runtime = new ExecutorRuntime({
    redisUrl: REDIS_URL,
    redisPrefix: prefix,
    logger: pino({ level: 'silent' }),
    concurrency: 2,
    nodeParallelism: 4,
    dataDir: DATA_DIR,
    runMemory: runMemory(RUN_MEMORY_BYTES),
    lockDurationMs: lockMs,
    stalledIntervalMs: Math.max(500, lockMs / 2),
    maxStalledCount: 2,
    catalogTimeoutMs: 3000,
    retryBackoffMs: 50,
    secretsKey: TEST_SECRETS_KEY,
  });
  await runtime.start();
  return runtime;
}

export function runCommand(runId: string, tenantId: string, dag: object): Record<string, unknown> {
  return {
    run_id: runId,
    tenant_id: tenantId,
    job_id: 'job_test',
    pipeline_id: 'pln_test',
    pipeline_version: 1,
    dag,
    parameters: {},
    trigger: 'manual',
  };
}

const MAIN_JS = fileURLToPath(new URL('../../dist/main.js', import.meta.url));

/**
 * The built executor as a process of its own on the suite's prefix (a test that kills it, or that it ends by itself),
 * with `env` beside what it needs.
 */
export function forkExecutor(prefix: string, env: Record<string, string>, stdio: StdioOptions): ChildProcess {
  if (!existsSync(MAIN_JS)) throw new Error('dist/main.js is missing: run `npm run build -w @conduit/executor` first');
  return fork(MAIN_JS, [], {
    env: {
      ...process.env,
      REDIS_URL,
      // The platform's database stands on another server: connectors may never reach the platform's own PostgreSQL
      // server (issue 14), and the suite's connector uses the test database's. The executor itself never connects.
      DATABASE_URL: Object.assign(new URL(DATABASE_URL), { port: '1', pathname: '/conduit_platform' }).toString(),
      REDIS_PREFIX: prefix,
      SECRETS_KEY: TEST_SECRETS_KEY.toString('hex'),
      EXECUTOR_PORT: '0',
      ...env,
    },
    stdio,
  });
}
