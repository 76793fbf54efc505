// A tenant's statement whose values outgrow what DuckDB's memory_limit counts (one string of gigabytes, a list of
// tens of millions of strings, nested lambdas) fails as that node's out-of-memory error under the executor's
// data-size limit, where the kernel would otherwise kill the executor and every run on it: the executor lives on,
// another run beside it finishes there, and the memory and address space the statement took are handed back. And
// what a node does not need of what a statement answers (a rule's rows past the first, an sql node's rows) is never
// held.
import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { newId } from '@conduit/service-kit';
import { branch, chain, dagNodes, linearDag, rulesDecision, waitFor } from '@conduit/testing';
import type pg from 'pg';
import { dataLimitOf } from '../src/ops/data-limit.js';
import { forkExecutor } from './support/executor.js';
import { connectorConfig, uniqueSchema, dropSchema, openSchema } from './support/postgres.js';
import { startWorkerSuite, type WorkerSuite } from './support/worker-suite.js';

const TENANT = 'tnt_data_limit_test';
const MiB = 1024 * 1024;
const LIMIT_BYTES = 1024 * MiB;
const schema = uniqueSchema();
let db: pg.Client;
let suite: WorkerSuite;
let child: ChildProcess | undefined;
let log = '';

/** Each reads its input (`n`), so nothing folds it at bind time; measured unlimited: 2 GB, 1.6 GB, 4.6 GB. */
const GREEDY: Record<string, string> = {
  one_string: `select length(repeat('a', 2000000000 + n)) as l from one`,
  many_strings: `select len(string_split(repeat('a,', 50000000 + n), ',')) as l from one`,
  nested_lists: `select len(list_transform(range(20000 + n), x -> range(20000))) as l from one`,
};

/**
 * A figure of /proc/<pid>/status in bytes: VmRSS (resident), VmHWM (resident at its peak), VmData (the private address
 * space mapped, what RLIMIT_DATA counts).
 */
function statusBytes(pid: number, field: 'VmRSS' | 'VmHWM' | 'VmData'): number {
  const kib = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  return Number(kib) * 1024;
}

beforeAll(async () => {
  db = await openSchema(schema);
  const connectors = [{ id: 'con_pg', type: 'postgres', config: connectorConfig(schema) }];
  suite = await startWorkerSuite({ tenantId: TENANT, connectors, requests: [] });
  child = forkExecutor(
    suite.prefix,
    {
      EXECUTOR_MEMORY_LIMIT: String(LIMIT_BYTES),
      EXECUTOR_CONCURRENCY: '2',
      UV_THREADPOOL_SIZE: '6',
      LOG_LEVEL: 'warn',
    },
    ['ignore', 'pipe', 'inherit', 'ipc'],
  );
  child.stdout!.on('data', (chunk: Buffer) => (log += chunk.toString('utf8')));
});

afterAll(async () => {
  if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await suite?.close();
  await dropSchema(db, schema);
});

it('fails the greedy statement, not the executor, and hands the memory back', async () => {
  const pid = child!.pid!;
  const { source, transform, sql } = dagNodes('con_pg');

  // Another run, on the executor while every greedy one runs.
  const other = newId('run');
  await suite.enqueue(other, TENANT, linearDag(sql('nap', 'select pg_sleep(4)')));
  await suite.started(other, { what: 'the child executor to start the other run', timeoutMs: 20_000 });
  // The container's memory and the stacks of libuv's 6 threads and 8 others (mapped, hardly resident).
  expect(dataLimitOf(pid)).toBe(LIMIT_BYTES + (6 + 8) * 8 * MiB);

  for (const [name, greedy] of Object.entries(GREEDY)) {
    const run = newId('run');
    await suite.enqueue(
      run,
      TENANT,
      linearDag(source('one', { query: 'select 1 as n' }), transform(name, greedy, { retries: 2 })),
    );
    const end = await suite.finished(run, { what: `the ${name} run to fail`, timeoutMs: 60_000 });
    expect(end).toMatchObject({ status: 'failed', error: { node_id: name } });
    const node = end.nodes.find((n) => n.id === name);
    expect(node?.error?.message).toMatch(
      /^Out of Memory Error: .+: the statement needs more memory than a run may use here$/,
    );
    // Not tried again (retries: 2): each attempt would take the executor to its limit again.
    expect(node?.attempts).toBe(1);
    expect(child!.exitCode).toBeNull();
  }

  await expect(suite.finished(other, { what: 'the other run to finish' })).resolves.toMatchObject({
    status: 'succeeded',
    attempt: 1,
  });
  // They took the executor's memory up: half its limit resident at the peak, at least.
  expect(statusBytes(pid, 'VmHWM')).toBeGreaterThan(LIMIT_BYTES / 2);
  // And what they took is handed back: the memory, and the address space the limit counts (DuckDB's allocator would
  // keep it, and V8 could not grow), but for what DuckDB can leak of a vector whose allocation was refused halfway,
  // never touched (512 MiB here, one try in three: docs/security.md, "Memory DuckDB does not count").
  await waitFor(
    () => {
      const [resident, mapped] = [statusBytes(pid, 'VmRSS'), statusBytes(pid, 'VmData')];
      if (resident >= (LIMIT_BYTES * 3) / 8) throw new Error(`${resident} bytes are resident`);
      if (mapped >= (LIMIT_BYTES * 7) / 8) throw new Error(`${mapped} bytes are mapped`);
      return true;
    },
    { what: "the executor's memory to fall under 3/8 of its limit, its address space under 7/8", timeoutMs: 30_000 },
  );
  // And the executor runs the next run as if nothing happened.
  const after = newId('run');
  await suite.enqueue(after, TENANT, linearDag(source('one', { query: 'select 1 as n' })));
  await expect(suite.finished(after, { what: 'a run after the greedy ones' })).resolves.toMatchObject({
    status: 'succeeded',
  });
  expect([child!.exitCode, child!.signalCode]).toEqual([null, null]);
  expect(log).not.toContain('repeat(');
}, 180_000);

it("holds no row a node does not need: a rule's past its first, an sql node's answer", async () => {
  const { source, sql } = dagNodes('con_pg');
  const run = newId('run');
  await suite.enqueue(run, TENANT, {
    nodes: [
      source('one', { query: 'select 1 as n' }),
      rulesDecision('route', {
        choices: ['many', 'none'],
        default: 'none',
        // A hundred million rows answered: gigabytes, were they read into the executor's heap.
        rules: [{ choice: 'many', sql: 'select true as b from one cross join range(100000000)' }],
      }),
      // Half a million rows of 2,000 characters: a gigabyte, were they kept.
      sql('answers', "select repeat('x', 2000) as wide from generate_series(1, 500000)"),
    ],
    edges: [...chain('one', 'route'), ...branch('route', 'many', 'answers')],
  });
  const end = await suite.finished(run, { what: 'the run of the long answers', timeoutMs: 90_000 });
  expect({ status: end.status, error: end.error }).toEqual({ status: 'succeeded', error: null });
  expect(end.nodes.find((n) => n.id === 'route')).toMatchObject({ output: { choice: 'many' } });
  expect(end.nodes.find((n) => n.id === 'answers')).toMatchObject({ status: 'succeeded', rows_out: 500_000 });
  expect([child!.exitCode, child!.signalCode]).toEqual([null, null]);
}, 120_000);
