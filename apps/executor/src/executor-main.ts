import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { Redis } from 'ioredis';
import {
  NestPinoLogger,
  createLogger,
  createMetricsRegistry,
  preflight,
  redisReadinessCheck,
  startTracing,
} from '@conduit/service-kit';
import { secretKeysOf } from '@conduit/secrets';
import { knowPlatformServices } from '@conduit/connectors';
import { bootConfig } from './boot-config.js';
import { ExecutorAppModule } from './ops/executor-app.module.js';
import { ExecutorRuntime } from './runs/executor-runtime.js';
import { RunMetrics } from './ops/run-metrics.js';
import { runMemory } from './data/run-memory.js';
import { strandedStatements } from './data/workspace-database.js';
import { dataLimitBytes, limitDataSize } from './ops/data-limit.js';

/**
 * Every DuckDB statement of a run holds one of libuv's threads while it runs (threads=1), as do file and DNS calls.
 * With Node's default 4 threads, four long statements of one tenant would hold every other run's, so the launchers
 * (npm start, the image's start.sh, the test stack) set UV_THREADPOOL_SIZE to EXECUTOR_CONCURRENCY + 4. It must be
 * set before the process starts: an ES module's code runs after the pool exists.
 */
function warnOnSmallThreadPool(threads: number, concurrency: number, logger: ReturnType<typeof createLogger>): void {
  if (threads >= concurrency + 1) return;
  logger.warn(
    { uv_threadpool_size: threads, executor_concurrency: concurrency },
    `UV_THREADPOOL_SIZE (${threads}) is below EXECUTOR_CONCURRENCY + 1: one run's long statements can hold every other run's; start the executor with UV_THREADPOOL_SIZE=${concurrency + 4} (docs/operations.md, Sizing executors)`,
  );
}

/** Why the executor drains when a run's statement would not stop (ExecutorRuntime onStrandedWork). */
const STRANDED = 'stranded statement';

/** Starts the executor: main.ts imports this module once DuckDB's allocator options are set. */
export async function main(): Promise<void> {
  // First: the instrumentations must be in place before the database and Redis clients exist.
  await startTracing('executor', { instrumentPg: false });
  const config = bootConfig();
  // Connectors refuse the platform's own PostgreSQL and Redis, also where only the config's defaults name them.
  knowPlatformServices(config);
  const logger = createLogger({ service: 'executor', level: config.LOG_LEVEL });
  await preflight({
    redisUrl: config.REDIS_URL,
    ports: [{ variable: 'EXECUTOR_PORT', port: config.EXECUTOR_PORT, host: config.HOST }],
  });
  // libuv's threads, Node's default 4 unless the launcher set more.
  const threadPoolSize = Number(process.env['UV_THREADPOOL_SIZE']) || 4;
  warnOnSmallThreadPool(threadPoolSize, config.EXECUTOR_CONCURRENCY, logger);
  const memory = runMemory(config.RUN_MEMORY_LIMIT, undefined, config.RUN_SCRATCH_LIMIT, config.RUN_SPILL_LIMIT);
  // Before the first run's DuckDB opens: from here a tenant's statement fails where it would take the process down.
  limitDataSize(
    dataLimitBytes({
      containerBytes: config.EXECUTOR_MEMORY_LIMIT,
      concurrency: config.EXECUTOR_CONCURRENCY,
      runMemoryBytes: config.RUN_MEMORY_LIMIT,
      runThreads: Number(memory.duckdb.threads),
      threadPoolSize,
    }),
    logger,
  );
  const registry = createMetricsRegistry('executor');
  const runtime = new ExecutorRuntime({
    redisUrl: config.REDIS_URL,
    redisPrefix: config.REDIS_PREFIX,
    logger,
    concurrency: config.EXECUTOR_CONCURRENCY,
    nodeParallelism: config.EXECUTOR_NODE_PARALLELISM,
    dataDir: config.EXECUTOR_DATA_DIR,
    runMemory: memory,
    lockDurationMs: config.RUN_LOCK_MS,
    stalledIntervalMs: config.RUN_STALLED_INTERVAL_MS,
    maxStalledCount: config.MAX_STALLED_COUNT,
    catalogTimeoutMs: config.CATALOG_RPC_TIMEOUT_MS,
    secretsKey: secretKeysOf(config),
    connectorPools: {
      max: config.CONNECTOR_POOL_MAX,
      idleMs: config.CONNECTOR_POOL_IDLE_MS,
      maxPools: config.CONNECTOR_POOLS_MAX,
    },
    metrics: new RunMetrics(registry, config.EXECUTOR_CONCURRENCY),
    interruptGraceMs: config.EXECUTOR_INTERRUPT_GRACE_MS,
    onStrandedWork: () => shutdown(STRANDED),
  });

  // Only for /readyz: the runtime keeps connections of its own.
  const redis = new Redis(config.REDIS_URL, { maxRetriesPerRequest: 1 });
  // An outage shows in /readyz (and ioredis reconnects by itself): not an 'Unhandled error event' on stderr.
  redis.on('error', () => undefined);
  const app = await NestFactory.create<NestFastifyApplication>(
    ExecutorAppModule.forRoot({ registry, checks: [redisReadinessCheck(redis)] }),
    new FastifyAdapter(),
    { logger: new NestPinoLogger(logger) },
  );
  await app.listen(config.EXECUTOR_PORT, config.HOST);
  logger.info({ port: config.EXECUTOR_PORT, host: config.HOST }, 'executor ready');

  let ending: Promise<void> | undefined;
  /**
   * Drains within EXECUTOR_SHUTDOWN_GRACE_MS, then hands the rest back: on a signal, and when a run's statement would
   * not stop (its core is held until the process ends, and the memory it takes may grow: not a drain without end).
   */
  function shutdown(why: string): void {
    if (ending) return;
    logger.info({ why, grace_ms: config.EXECUTOR_SHUTDOWN_GRACE_MS }, 'draining');
    ending = (async () => {
      let code = why === STRANDED ? 1 : 0;
      try {
        await runtime.stop(config.EXECUTOR_SHUTDOWN_GRACE_MS);
        await app.close();
        redis.disconnect();
      } catch (err) {
        logger.error({ err }, 'unclean shutdown');
        code = 1;
      }
      const stranded = strandedStatements();
      // fatal: written at once. The exit then ends with SIGKILL (workspace-database.ts): a normal one would wait for it.
      if (stranded > 0) logger.fatal({ stranded_statements: stranded }, 'ending with SIGKILL: a statement still runs');
      process.exit(code);
    })();
  }
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
  // Last: a run stranded before shutdown existed would have had nobody to tell.
  await runtime.start();
}
