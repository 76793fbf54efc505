// The engine on a real DuckDB and the real postgres driver, against a throwaway schema.
import { readdir } from 'node:fs/promises';
import { branch, chain, dagNodes, linearDag, rulesDecision, waitFor } from '@conduit/testing';
import { CONNECTOR_ID, DATA_DIR, nodeOf, runDag } from './support/engine-harness.js';
import { count, useSuiteSchema } from './support/postgres.js';

const ROWS = 100_000;

const { source, sink, transform } = dagNodes(CONNECTOR_ID);

const suite = useSuiteSchema(async (db) => {
  await db.query(
    `create table orders (id integer primary key, name text, amount numeric(12,2), qty integer, created_at timestamptz)`,
  );
  await db.query(
    `insert into orders select g, 'order ' || g, (g % 1000) / 10.0, g % 5, timestamptz '2026-01-01T00:00:00Z' + g * interval '1 second'
     from generate_series(1, ${ROWS}) g`,
  );
  await db.query(
    `create table orders_clean (id integer primary key, name text, amount numeric(12,2), qty integer, total numeric(14,2), created_at timestamptz)`,
  );
});
const { config } = suite;

const copyDag = linearDag(
  source('orders', { query: 'select * from orders' }),
  transform('clean', 'select *, cast(amount as decimal(12,2)) * qty as total from orders where qty > 0'),
  sink('to_clean', 'orders_clean', { mode: 'upsert', key: ['id'] }),
);

describe('source -> transform -> sink', () => {
  const expected = (ROWS * 4) / 5; // qty = 0 for every fifth row

  it('copies the filtered rows with the computed column, and a second run adds no duplicates', async () => {
    const first = await runDag(copyDag, config);
    expect(first.outcome.error).toBeNull();
    expect(first.outcome.status).toBe('succeeded');
    expect(await count(suite.db, 'orders_clean')).toBe(expected);

    expect(nodeOf(first, 'orders')).toMatchObject({ status: 'succeeded', rows_in: 0, rows_out: ROWS, attempts: 1 });
    expect(nodeOf(first, 'clean')).toMatchObject({ status: 'succeeded', rows_in: ROWS, rows_out: expected });
    expect(nodeOf(first, 'to_clean')).toMatchObject({ status: 'succeeded', rows_in: expected, rows_out: expected });
    expect(first.outcome.stats).toEqual({ rows_read: ROWS, rows_written: expected });
    for (const node of first.outcome.nodes) {
      expect(node.started_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      expect(node.finished_at! >= node.started_at!).toBe(true);
    }
    // Every node went pending -> running -> succeeded, reported as it happened.
    expect(first.changes.filter((c) => c.id === 'clean').map((c) => c.status)).toEqual(['running', 'succeeded']);

    const { rows } = await suite.db.query(`select * from orders_clean where id = 1234`);
    expect(rows[0]).toEqual({
      id: 1234,
      name: 'order 1234',
      amount: '23.40',
      qty: 4,
      total: '93.60',
      created_at: new Date(Date.parse('2026-01-01T00:00:00Z') + 1234_000),
    });

    const second = await runDag(copyDag, config);
    expect(second.outcome.status).toBe('succeeded');
    expect(await count(suite.db, 'orders_clean')).toBe(expected);
    expect(nodeOf(second, 'to_clean').rows_out).toBe(expected);
  });

  it('logs node starts, finishes and row counts, and leaves no DuckDB files behind', async () => {
    const run = await runDag(copyDag, config, { runId: 'run_logs' });
    const messages = run.lines.map((l) => `${l.node_id}: ${l.message}`);
    expect(messages).toContain('orders: source started');
    expect(messages).toContain(`orders: read ${ROWS} rows`);
    expect(messages.some((m) => m.startsWith('to_clean: succeeded in') && m.endsWith(`rows_out=${expected}`))).toBe(
      true,
    );
    expect(JSON.stringify(run.lines)).not.toContain('password');
    const left = await readdir(DATA_DIR).catch(() => []);
    expect(left.filter((name) => name.startsWith('run_logs'))).toEqual([]);
  });
});

describe('decision by rules', () => {
  it('runs the chosen branch and skips the other with its descendants', async () => {
    await suite.db.query(`create table big_orders (id integer, name text)`);
    await suite.db.query(`create table small_orders (id integer, name text)`);
    const dag = {
      nodes: [
        source('few', { query: 'select id, name from orders where id <= 50' }),
        rulesDecision('route', {
          choices: ['big', 'small'],
          default: 'small',
          rules: [
            { choice: 'big', sql: 'select count(*) > 1000 from few' },
            { choice: 'small', sql: 'select count(*) > 10 from few' },
          ],
        }),
        transform('big_rows', 'select * from route'),
        sink('big_out', 'big_orders'),
        transform('small_rows', 'select * from route where id % 2 = 0'),
        sink('small_out', 'small_orders'),
      ],
      edges: [
        ...chain('few', 'route'),
        ...branch('route', 'big', 'big_rows', 'big_out'),
        ...branch('route', 'small', 'small_rows', 'small_out'),
      ],
    };
    const run = await runDag(dag, config);
    expect(run.outcome.status).toBe('succeeded');
    expect(nodeOf(run, 'route')).toMatchObject({
      status: 'succeeded',
      rows_in: 50,
      rows_out: 50,
      output: { choice: 'small', reason: expect.stringContaining('rules[1]') },
    });
    expect(nodeOf(run, 'big_rows').status).toBe('skipped');
    expect(nodeOf(run, 'big_out').status).toBe('skipped');
    expect(nodeOf(run, 'small_out')).toMatchObject({ status: 'succeeded', rows_out: 25 });
    expect(await count(suite.db, 'big_orders')).toBe(0);
    expect(await count(suite.db, 'small_orders')).toBe(25);
    expect(run.lines.some((l) => l.node_id === 'route' && l.message.startsWith('chose "small"'))).toBe(true);
  });

  it('fails an llm decision whose connector cannot act as llm (llm-decision.test.ts covers the rest)', async () => {
    const dag = {
      nodes: [
        source('one', { query: 'select 1 as x' }),
        {
          id: 'ask',
          type: 'decision',
          config: { strategy: 'llm', connector_id: CONNECTOR_ID, prompt: 'p', choices: ['a'], default: 'a' },
        },
      ],
      edges: [{ from: 'one', to: 'ask' }],
    };
    const run = await runDag(dag, config);
    expect(run.outcome.status).toBe('failed');
    expect(run.outcome.error).toMatchObject({
      node_id: 'ask',
      code: 'connector_unfit',
      message: expect.stringContaining('cannot act as llm'),
    });
  });
});

describe('failures', () => {
  it("never reports its connector's secret, even when the source's server echoes it from the tenant's SQL", async () => {
    const password = 'Hidden-Passw0rd-in-the-query';
    // Trust authentication here: the password is the connector's, unused by the server, and echoed by the query.
    const run = await runDag(linearDag(source('leaky', { query: `select '${password}'::int as n`, retries: 1 })), {
      ...config,
      password,
    });
    expect(run.outcome.status).toBe('failed');
    expect(run.outcome.error?.message).toContain('invalid input syntax for type integer: "********"');
    expect(JSON.stringify([run.outcome, run.lines, run.changes])).not.toContain(password);
  });

  it("never reports any connector's secret of the run in another node's error or log lines, in any case", async () => {
    const password = 'Hidden-Passw0rd-in-a-transform';
    // The transform has no connector of its own: the secret is the source's, echoed upper-cased by DuckDB.
    const dag = {
      nodes: [
        source('orders', { query: 'select 1 as n' }),
        {
          id: 'leaky',
          type: 'transform',
          config: { sql: `select upper('${password}')::int as n from orders`, retries: 1 },
        },
      ],
      edges: [{ from: 'orders', to: 'leaky' }],
    };
    const run = await runDag(dag, { ...config, password });
    expect(run.outcome.status).toBe('failed');
    expect(run.outcome.error?.message).toContain('********');
    const reported = JSON.stringify([run.outcome, run.lines, run.changes]).toLowerCase();
    expect(reported).not.toContain(password.toLowerCase());
  });

  it('fails the run on bad SQL, naming the node and the message; nodes below are skipped, other branches finish', async () => {
    await suite.db.query(`create table side_out (id integer)`);
    const dag = {
      nodes: [
        source('src', { query: 'select id from orders where id <= 10' }),
        transform('broken', 'select no_such_column from src'),
        sink('below', 'orders_clean'),
        source('side', { query: 'select id from orders where id <= 7' }),
        sink('side_sink', 'side_out'),
      ],
      edges: [...chain('src', 'broken', 'below'), ...chain('side', 'side_sink')],
    };
    const run = await runDag(dag, config);
    expect(run.outcome.status).toBe('failed');
    expect(run.outcome.error).toEqual({
      node_id: 'broken',
      message: expect.stringMatching(/^node "broken" failed: Binder Error: .*no_such_column/s),
    });
    expect(nodeOf(run, 'broken')).toMatchObject({
      status: 'failed',
      attempts: 1,
      error: { message: expect.stringContaining('no_such_column') },
    });
    expect(nodeOf(run, 'below').status).toBe('skipped');
    expect(nodeOf(run, 'side_sink')).toMatchObject({ status: 'succeeded', rows_out: 7 });
    expect(await count(suite.db, 'side_out')).toBe(7);
  });

  it('names the database message when the source query is wrong', async () => {
    const run = await runDag({ nodes: [source('bad', { query: 'select * from missing_table' })], edges: [] }, config);
    expect(run.outcome.error).toMatchObject({
      node_id: 'bad',
      message: expect.stringContaining('relation "missing_table" does not exist'),
    });
  });

  it('times out each attempt and retries with backoff until the attempts run out', async () => {
    const dag = {
      nodes: [
        {
          id: 'slow',
          type: 'sql',
          config: { connector_id: CONNECTOR_ID, sql: 'select pg_sleep(5)', timeout_seconds: 0.3, retries: 2 },
        },
      ],
      edges: [],
    };
    const started = Date.now();
    const run = await runDag(dag, config);
    expect(run.outcome.status).toBe('failed');
    expect(nodeOf(run, 'slow')).toMatchObject({
      status: 'failed',
      attempts: 3,
      error: { message: 'timed out after 0.3 s', code: 'timeout' },
    });
    expect(Date.now() - started).toBeLessThan(4000);
    expect(run.lines.filter((l) => l.level === 'warn' && l.message.includes('retrying in'))).toHaveLength(2);
  });

  it('succeeds on a later attempt', async () => {
    await suite.db.query(`create sequence tries`);
    const sql = `do $$ begin if nextval('tries') < 3 then perform pg_sleep(5); end if; end $$`;
    const dag = {
      nodes: [
        { id: 'flaky', type: 'sql', config: { connector_id: CONNECTOR_ID, sql, timeout_seconds: 0.4, retries: 3 } },
      ],
      edges: [],
    };
    const run = await runDag(dag, config);
    expect(run.outcome.status).toBe('succeeded');
    expect(nodeOf(run, 'flaky')).toMatchObject({ status: 'succeeded', attempts: 3, error: null });
  });
});

describe('cancel', () => {
  it('stops within a second, marks nodes canceled and writes nothing', async () => {
    await suite.db.query(`create table cancel_out (id integer, pad text)`);
    const dag = linearDag(
      source('huge', { query: `select g as id, repeat('x', 50) as pad from generate_series(1, 5000000) g` }),
      sink('out', 'cancel_out'),
    );
    const controller = new AbortController();
    const running = runDag(dag, config, { signal: controller.signal, runId: 'run_cancel' });
    const reading = async () => {
      const { rows } = await suite.db.query<{ n: number }>(
        `select count(*)::int as n from pg_stat_activity where query like '%generate_series(1, 5000000)%' and pid <> pg_backend_pid()`,
      );
      return rows[0]?.n ?? 0;
    };
    await waitFor(async () => (await reading()) > 0, { what: 'the source query to run', timeoutMs: 10_000 });
    const abortedAt = Date.now();
    controller.abort(new Error('canceled by test'));
    const run = await running;
    expect(Date.now() - abortedAt).toBeLessThan(1000);
    expect(run.outcome.status).toBe('canceled');
    expect(nodeOf(run, 'huge').status).toBe('canceled');
    expect(nodeOf(run, 'out').status).toBe('canceled');
    // Seconds on a machine busy with other suites (CI runs them side by side). Neither canceled nor cut off, the COPY
    // would wait on its unread connection for good, so the wait still tells a query the run stopped from one it left.
    await waitFor(async () => (await reading()) === 0, {
      what: 'the server to stop the source query',
      timeoutMs: 10_000,
    });
    expect(await count(suite.db, 'cancel_out')).toBe(0);
  });
});
