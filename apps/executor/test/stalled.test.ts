// An executor process killed mid-run loses its lock; another executor takes the run (BullMQ stalled recovery).
import { fork, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type pg from 'pg';
import { newId } from '@conduit/service-kit';
import type { ExecutorRuntime } from '../src/runs/executor-runtime.js';
import { startExecutor, TEST_SECRETS_KEY } from './support/executor.js';
import { DATABASE_URL, connectorConfig, uniqueSchema, dropSchema, openSchema } from './support/postgres.js';
import { reportsOf } from './support/queues.js';
import { REDIS_URL } from './support/redis.js';
import { startWorkerSuite, type WorkerSuite } from './support/worker-suite.js';
import { dagNodes, linearDag, waitFor } from '@conduit/testing';

const TENANT = 'tnt_stalled_test';
const LOCK_MS = 1500;
const schema = uniqueSchema();
const mainJs = fileURLToPath(new URL('../dist/main.js', import.meta.url));
let db: pg.Client;
let suite: WorkerSuite;
let child: ChildProcess | undefined;
let runtime: ExecutorRuntime | undefined;

beforeAll(async () => {
  if (!existsSync(mainJs)) throw new Error('dist/main.js is missing: run `npm run build -w @conduit/executor` first');
  db = await openSchema(schema);
  await db.query(`create table ${schema}.marks (n integer)`);
  suite = await startWorkerSuite({
    tenantId: TENANT,
    connectors: [{ id: 'con_pg', type: 'postgres', config: connectorConfig(schema) }],
    requests: [],
  });
});

afterAll(async () => {
  if (child && child.exitCode === null) child.kill('SIGKILL');
  await runtime?.stop(1000);
  await suite?.close();
  await dropSchema(db, schema);
});

it('takes over the run of a killed executor and finishes it as attempt 2', async () => {
  child = fork(mainJs, [], {
    env: {
      ...process.env,
      REDIS_URL,
      // The platform's database stands on another server: connectors may never reach the platform's own PostgreSQL
      // server (issue 14), and the suite's connector uses the test database's. The executor itself never connects.
      DATABASE_URL: Object.assign(new URL(DATABASE_URL), { port: '1', pathname: '/conduit_platform' }).toString(),
      REDIS_PREFIX: suite.prefix,
      SECRETS_KEY: TEST_SECRETS_KEY.toString('hex'),
      EXECUTOR_PORT: '0',
      RUN_LOCK_MS: String(LOCK_MS),
      RUN_STALLED_INTERVAL_MS: '500',
      LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  const runId = newId('run');
  const { sql } = dagNodes('con_pg');
  const dag = linearDag(sql('nap', 'select pg_sleep(2)'), sql('mark', 'insert into marks values (1)'));
  await suite.enqueue(runId, TENANT, dag);
  await waitFor(
    async () =>
      (await reportsOf(suite.queues.reports, runId)).some((r) => r.type === 'run.node' && r.node.status === 'running'),
    { what: 'the child executor to start the run', timeoutMs: 15_000 },
  );
  child.kill('SIGKILL');

  runtime = await startExecutor(suite.prefix, LOCK_MS);
  const end = await suite.finished(runId, { what: 'the run to finish on the second executor' });
  // Two claims granted: the dead executor's, then the survivor's once the dead one's lease (half the lock) lapsed.
  const granted = suite.fencing.claims.filter((c) => c.answer.granted);
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
