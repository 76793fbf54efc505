// An executor process killed mid-run loses its lock; another executor takes the run (BullMQ stalled recovery).
import { fork, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { INestMicroservice } from '@nestjs/common';
import type { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import type pg from 'pg';
import { newId } from '@conduit/service-kit';
import type { ExecutorRuntime } from '../src/runs/executor-runtime.js';
import { startCatalogStub } from './support/catalog-stub.js';
import { newSchedulerStubData, startSchedulerStub } from './support/scheduler-stub.js';
import { runCommand, startExecutor, TEST_SECRETS_KEY } from './support/executor.js';
import { DATABASE_URL, connectPg, connectorConfig, uniqueSchema } from './support/postgres.js';
import { openQueues, reportsOf } from './support/queues.js';
import { REDIS_URL, connectRedis, deleteKeys, testPrefix } from './support/redis.js';
import { waitFor } from '@conduit/testing';

const TENANT = 'tnt_stalled_test';
const LOCK_MS = 1500;
const prefix = testPrefix();
const schema = uniqueSchema();
const mainJs = fileURLToPath(new URL('../dist/main.js', import.meta.url));
let redis: Redis;
let db: pg.Client;
let catalog: INestMicroservice;
let scheduler: INestMicroservice;
const fencing = newSchedulerStubData();
let queues: { runs: Queue; reports: Queue; logs: Queue };
let child: ChildProcess | undefined;
let runtime: ExecutorRuntime | undefined;

beforeAll(async () => {
  if (!existsSync(mainJs)) throw new Error('dist/main.js is missing: run `npm run build -w @conduit/executor` first');
  redis = await connectRedis();
  db = await connectPg();
  await db.query(`create schema ${schema}`);
  await db.query(`create table ${schema}.marks (n integer)`);
  catalog = await startCatalogStub(prefix, {
    tenantId: TENANT,
    connectors: [{ id: 'con_pg', type: 'postgres', config: connectorConfig(schema) }],
    requests: [],
  });
  scheduler = await startSchedulerStub(prefix, fencing);
  queues = openQueues(prefix);
});

afterAll(async () => {
  if (child && child.exitCode === null) child.kill('SIGKILL');
  await runtime?.stop(1000);
  await catalog?.close();
  await scheduler?.close();
  await Promise.all(queues ? Object.values(queues).map((q) => q.close()) : []);
  if (redis) {
    await deleteKeys(redis, prefix);
    await redis.quit();
  }
  if (db) {
    await db.query(`drop schema if exists ${schema} cascade`);
    await db.end();
  }
});

it('takes over the run of a killed executor and finishes it as attempt 2', async () => {
  child = fork(mainJs, [], {
    env: {
      ...process.env,
      REDIS_URL,
      // The platform's database stands elsewhere: connectors may never reach the platform's own (issue 14), and the
      // suite's connector uses the test database.
      DATABASE_URL: Object.assign(new URL(DATABASE_URL), { pathname: '/conduit_platform' }).toString(),
      REDIS_PREFIX: prefix,
      SECRETS_KEY: TEST_SECRETS_KEY.toString('hex'),
      EXECUTOR_PORT: '0',
      RUN_LOCK_MS: String(LOCK_MS),
      RUN_STALLED_INTERVAL_MS: '500',
      LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  const runId = newId('run');
  const dag = {
    nodes: [
      { id: 'nap', type: 'sql', config: { connector_id: 'con_pg', sql: 'select pg_sleep(2)' } },
      { id: 'mark', type: 'sql', config: { connector_id: 'con_pg', sql: 'insert into marks values (1)' } },
    ],
    edges: [{ from: 'nap', to: 'mark' }],
  };
  await queues.runs.add('run', runCommand(runId, TENANT, dag), { jobId: runId });
  await waitFor(
    async () =>
      (await reportsOf(queues.reports, runId)).some((r) => r.type === 'run.node' && r.node.status === 'running'),
    { what: 'the child executor to start the run', timeoutMs: 15_000 },
  );
  child.kill('SIGKILL');

  runtime = await startExecutor(prefix, LOCK_MS);
  let end: Awaited<ReturnType<typeof reportsOf>>[number] | undefined;
  await waitFor(
    async () => {
      end = (await reportsOf(queues.reports, runId)).find((r) => r.type === 'run.finished');
      return end !== undefined;
    },
    { what: 'the run to finish on the second executor', timeoutMs: 20_000 },
  );
  // Two claims granted: the dead executor's, then the survivor's once the dead one's lease (half the lock) lapsed.
  const granted = fencing.claims.filter((c) => c.answer.granted);
  expect(
    granted.map((c) => [c.attempt, c.executor_id === runtime!.executorId, c.answer.granted && c.answer.epoch]),
  ).toEqual([
    [1, false, 1],
    [2, true, 2],
  ]);
  expect(end).toMatchObject({ status: 'succeeded', attempt: 2, epoch: 2 });
  const { rows } = await db.query<{ n: number }>(`select count(*)::int as n from ${schema}.marks`);
  expect(rows[0]?.n).toBe(1);
});
