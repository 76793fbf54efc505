// An executor process killed mid-run loses its lock; another executor takes the run (BullMQ stalled recovery).
import type { ChildProcess } from 'node:child_process';
import type pg from 'pg';
import { newId } from '@conduit/service-kit';
import type { ExecutorRuntime } from '../src/runs/executor-runtime.js';
import { forkExecutor, startExecutor } from './support/executor.js';
import { connectorConfig, uniqueSchema, dropSchema, openSchema } from './support/postgres.js';
import { startWorkerSuite, type WorkerSuite } from './support/worker-suite.js';
import { dagNodes, linearDag } from '@conduit/testing';

const TENANT = 'tnt_stalled_test';
const LOCK_MS = 1500;
const schema = uniqueSchema();
let db: pg.Client;
let suite: WorkerSuite;
let child: ChildProcess | undefined;
let runtime: ExecutorRuntime | undefined;

beforeAll(async () => {
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
  child = forkExecutor(
    suite.prefix,
    { RUN_LOCK_MS: String(LOCK_MS), RUN_STALLED_INTERVAL_MS: '500', LOG_LEVEL: 'warn' },
    ['ignore', 'ignore', 'inherit', 'ipc'],
  );
  const runId = newId('run');
  const { sql } = dagNodes('con_pg');
  const dag = linearDag(sql('nap', 'select pg_sleep(2)'), sql('mark', 'insert into marks values (1)'));
  await suite.enqueue(runId, TENANT, dag);
  await suite.started(runId, { what: 'the child executor to start the run', timeoutMs: 15_000 });
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
