// A transform whose one value DuckDB computes without looking for an interrupt (nested lambdas: hours of work in one
// function call) is given up EXECUTOR_INTERRUPT_GRACE_MS after its timeout: the node fails at once, another run on the
// executor finishes there, and then the executor ends itself, the only way to free the core the statement holds.
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { newId } from '@conduit/service-kit';
import { forkExecutor } from './support/executor.js';
import { connectorConfig, uniqueSchema, dropSchema, openSchema } from './support/postgres.js';
import { uninterruptibleSql } from './support/uninterruptible.js';
import { startWorkerSuite, type WorkerSuite } from './support/worker-suite.js';
import { dagNodes, linearDag } from '@conduit/testing';
import type pg from 'pg';

const TENANT = 'tnt_stranded_test';
const GRACE_MS = 1000;
const schema = uniqueSchema();
let db: pg.Client;
let suite: WorkerSuite;
let child: ChildProcess | undefined;

/**
 * 1.25 x 10^11 lambda calls in one value: many minutes, were it not given up, in ~400 MB (with 100,000 a level each
 * level's lists take gigabytes, and the statement fails at the executor's data-size limit instead: data-limit.test.ts).
 * Reads its input, so nothing folds it at bind time.
 */
const ENDLESS = `${uninterruptibleSql('5000 + n')} from one`;

beforeAll(async () => {
  db = await openSchema(schema);
  suite = await startWorkerSuite({
    tenantId: TENANT,
    connectors: [{ id: 'con_pg', type: 'postgres', config: connectorConfig(schema) }],
    requests: [],
  });
});

afterAll(async () => {
  if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await suite?.close();
  await dropSchema(db, schema);
});

it('fails the node within its grace, lets the executor finish its other run, then ends the executor', async () => {
  child = forkExecutor(
    suite.prefix,
    {
      EXECUTOR_INTERRUPT_GRACE_MS: String(GRACE_MS),
      // The drain after a stranded statement is a SIGTERM's: the other run has this long to finish here.
      EXECUTOR_SHUTDOWN_GRACE_MS: '30000',
      LOG_LEVEL: 'warn',
    },
    ['ignore', 'pipe', 'inherit', 'ipc'],
  );
  let log = '';
  child.stdout!.on('data', (chunk: Buffer) => (log += chunk.toString('utf8')));
  const ended = once(child, 'exit');
  const { source, transform, sql } = dagNodes('con_pg');

  // The executor's first transform starts its SQL-check child (isolated-plan.ts): done here, so the endless node's
  // one-second timeout is spent running its statement, not waiting for that child on a busy machine (it was, in CI,
  // and the node's first attempt then timed out before its statement started: a retry, rightly).
  const warm = newId('run');
  await suite.enqueue(
    warm,
    TENANT,
    linearDag(source('one', { query: 'select 1 as n' }), transform('two', 'select n from one')),
  );
  await expect(suite.finished(warm, { what: 'a first transform run', timeoutMs: 30_000 })).resolves.toMatchObject({
    status: 'succeeded',
  });

  const other = newId('run');
  await suite.enqueue(other, TENANT, linearDag(sql('nap', 'select pg_sleep(6)')));
  await suite.started(other, { what: 'the child executor to start the other run', timeoutMs: 20_000 });

  const endless = newId('run');
  await suite.enqueue(
    endless,
    TENANT,
    linearDag(
      source('one', { query: 'select 1 as n' }),
      transform('forever', ENDLESS, { timeout_seconds: 1, retries: 3 }),
    ),
  );
  const startedAt = Date.now();
  const end = await suite.finished(endless, { what: 'the endless run to fail', timeoutMs: 30_000 });
  // The timeout (1 s) and the grace (1 s), give or take the run's start: not the minutes of the statement.
  expect(Date.now() - startedAt).toBeLessThan(20_000);
  expect(end).toMatchObject({ status: 'failed', error: { node_id: 'forever', code: 'timeout' } });
  // Not tried again (retries: 3): each attempt would hold one more core.
  expect(end.nodes.find((n) => n.id === 'forever')).toMatchObject({
    status: 'failed',
    attempts: 1,
    error: { message: 'timed out after 1 s; its statement did not stop within 1 s of being interrupted' },
  });

  // The other run was on the executor all along: it finishes there, within the drain, as its first execution.
  await expect(suite.finished(other, { what: 'the other run to finish' })).resolves.toMatchObject({
    status: 'succeeded',
    attempt: 1,
  });
  // Then the executor ends itself, with SIGKILL (process.exit would wait for the statement).
  let timer: NodeJS.Timeout | undefined;
  const [code, signal] = (await Promise.race([
    ended,
    new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error(`the executor did not end; its log:\n${log}`)), 30_000);
    }),
  ]).finally(() => clearTimeout(timer))) as [number | null, NodeJS.Signals | null];
  expect([code, signal]).toEqual([null, 'SIGKILL']);
  expect(log).toContain('a DuckDB statement did not stop when interrupted');
  expect(log).toContain('ending with SIGKILL');
  // The tenant's SQL is not the platform's log's business.
  expect(log).not.toContain('list_transform');
}, 90_000);
