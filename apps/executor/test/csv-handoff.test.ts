// A source whose only consumer is a sink hands it COPY CSV through a workspace file instead of a DuckDB table, on the
// real postgres driver against a throwaway schema. Arrays and microseconds would not survive the DuckDB path.
import { dagNodes, linearDag } from '@conduit/testing';
import { CONNECTOR_ID, nodeOf, runDag } from './support/engine-harness.js';
import { count, useSuiteSchema } from './support/postgres.js';

const { source, sink } = dagNodes(CONNECTOR_ID);

const suite = useSuiteSchema(async (db) => {
  await db.query(
    `create table wide (id bigint primary key, amount numeric(30,10), tags int[], at timestamptz, note text)`,
  );
  await db.query(
    `insert into wide select 9007199254740000 + g, 12345678901234567890.0123456789 + g, array[g, null], timestamptz '2026-01-01 00:00:00.123456+00' + g * interval '1 second',
       case when g % 7 = 0 then null else 'a "quoted", multi
line ' || g end
     from generate_series(1, 20000) g`,
  );
});
const { config } = suite;

describe('source -> sink through a CSV hand-off', () => {
  it('copies every row exactly (int8, numeric, arrays, microseconds, quoted text) and reports both nodes', async () => {
    await suite.db.query(`create table wide_copy (like wide)`);
    const run = await runDag(
      linearDag(source('extract', { query: 'select * from wide' }), sink('load', 'wide_copy')),
      config,
    );
    expect(run.outcome).toMatchObject({
      status: 'succeeded',
      error: null,
      stats: { rows_read: 20000, rows_written: 20000 },
    });
    expect(nodeOf(run, 'extract')).toMatchObject({ status: 'succeeded', rows_in: 0, rows_out: 20000, attempts: 1 });
    expect(nodeOf(run, 'load')).toMatchObject({ status: 'succeeded', rows_in: 20000, rows_out: 20000, attempts: 1 });
    const { rows } = await suite.db.query<{ n: number }>(
      `select count(*)::int as n from ((table wide except all table wide_copy) union all (table wide_copy except all table wide)) d`,
    );
    expect(rows[0]?.n).toBe(0);
    const messages = run.lines.map((l) => `${l.node_id}: ${l.message}`);
    expect(messages).toContain('extract: read 20000 rows');
    expect(messages).toContain('load: wrote 20000 of 20000 rows to wide_copy (append)');
  });

  it('upserts through the hand-off, the last row of a key winning', async () => {
    await suite.db.query(`create table by_key (id bigint primary key, v text)`);
    await suite.db.query(`insert into by_key values (1, 'old')`);
    const dag = linearDag(
      source('keys', { query: `select * from (values (1::bigint, 'first'), (2, 'two'), (1, 'last')) as t(id, v)` }),
      sink('merge', 'by_key', { mode: 'upsert', key: ['id'] }),
    );
    const run = await runDag(dag, config);
    expect(run.outcome.status).toBe('succeeded');
    expect((await suite.db.query(`select id::int, v from by_key order by id`)).rows).toEqual([
      { id: 1, v: 'last' },
      { id: 2, v: 'two' },
    ]);
  });

  it('fails the source and skips the sink when the query is wrong', async () => {
    await suite.db.query(`create table never (n integer)`);
    const run = await runDag(
      linearDag(source('bad', { query: 'select n from no_such_table' }), sink('after', 'never')),
      config,
    );
    expect(run.outcome.status).toBe('failed');
    expect(run.outcome.error).toMatchObject({
      node_id: 'bad',
      message: expect.stringContaining('relation "no_such_table" does not exist'),
    });
    expect(nodeOf(run, 'bad').status).toBe('failed');
    expect(nodeOf(run, 'after').status).toBe('skipped');
  });

  it('fails the sink after the source succeeded when the target is wrong; nothing is written', async () => {
    await suite.db.query(`create table narrow (id bigint)`);
    const run = await runDag(
      linearDag(source('wide_src', { query: 'select id, note from wide' }), sink('into_narrow', 'narrow')),
      config,
    );
    expect(run.outcome.status).toBe('failed');
    expect(run.outcome.error).toMatchObject({ node_id: 'into_narrow', message: expect.stringContaining('"note"') });
    expect(nodeOf(run, 'into_narrow').status).toBe('failed');
    expect(nodeOf(run, 'wide_src')).toMatchObject({ status: 'succeeded', rows_out: 20000 });
    expect(await count(suite.db, 'narrow')).toBe(0);
  });

  it('hands off with retries and a timeout too, each node keeping its own attempts', async () => {
    await suite.db.query(`create table retried (id bigint, tags int[])`);
    const dag = linearDag(
      source('src', { query: 'select id, tags from wide where id % 2 = 0', retries: 1, timeout_seconds: 30 }),
      sink('out', 'retried', { retries: 1 }),
    );
    const run = await runDag(dag, config);
    expect(run.outcome.status).toBe('succeeded');
    expect(nodeOf(run, 'src')).toMatchObject({ status: 'succeeded', attempts: 1, rows_out: 10000 });
    expect(nodeOf(run, 'out')).toMatchObject({ status: 'succeeded', attempts: 1, rows_in: 10000, rows_out: 10000 });
    expect(await count(suite.db, 'retried')).toBe(10000);
  });
});
