// An in-process executor runtime on the suite's prefix, with short lock settings.
import { randomBytes } from 'node:crypto';
import { pino } from 'pino';
import { ExecutorRuntime } from '../../src/runs/executor-runtime.js';
import { runMemory } from '../../src/data/run-memory.js';
import { DATA_DIR, RUN_MEMORY_BYTES } from './engine-harness.js';
import { REDIS_URL } from './redis.js';

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
