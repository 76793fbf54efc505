// A source whose only consumer is a sink hands it COPY CSV through a workspace file instead of a DuckDB table, on the
// real postgres driver against a throwaway schema. Arrays and microseconds would not survive the DuckDB path.
import { randomUUID } from 'node:crypto';
import { dagNodes, linearDag } from '@conduit/testing';
import { CONNECTOR_ID, nodeOf, runDag } from './support/engine-harness.js';
import { count, useSuiteSchema } from './support/postgres.js';

const { source, sink, transform } = dagNodes(CONNECTOR_ID);

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

  // The hand-off file was named by the node id's hex: an id of over 127 bytes made a name past 255 and failed.
  it('hands off from a source whose id is hundreds of characters long', async () => {
    await suite.db.query(`create table long_id_copy (like wide)`);
    const id = `extract_${'x'.repeat(300)}`;
    const run = await runDag(
      linearDag(source(id, { query: 'select * from wide' }), sink('load', 'long_id_copy')),
      config,
    );
    expect(run.outcome.error).toBeNull();
    expect(nodeOf(run, 'load')).toMatchObject({ status: 'succeeded', rows_out: 20000 });
    expect(run.lines.some((l) => l.node_id === id && l.message.includes('as CSV, COPY to COPY'))).toBe(true);
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

  it('never rounds a numeric into a narrower numeric(p,s) column: values that fit pass, one that would not fails the sink', async () => {
    await suite.db.query(`create table scaled (id int, v numeric(38,1))`);
    const from = (values: string) => `select id, v::numeric as v from (values ${values}) as t(id, v)`;
    // Both ways to the sink: the CSV hand-off (source straight into it) and the typed write (through a transform).
    const paths = [
      (query: string) => linearDag(source('src', { query }), sink('out', 'scaled')),
      (query: string) =>
        linearDag(source('src', { query }), transform('t', 'select * from src'), sink('out', 'scaled')),
    ];
    for (const [i, dagOf] of paths.entries()) {
      await suite.db.query('truncate scaled');
      const fits = await runDag(dagOf(from(`(1, '1.5'), (2, '2.50'), (3, null)`)), config);
      expect({ path: i, status: fits.outcome.status }).toEqual({ path: i, status: 'succeeded' });
      const rounds = await runDag(dagOf(from(`(4, '1.25'), (5, '0.005')`)), config);
      expect({ path: i, status: rounds.outcome.status, error: rounds.outcome.error }).toEqual({
        path: i,
        status: 'failed',
        error: expect.objectContaining({
          node_id: 'out',
          message: expect.stringContaining('column "v" holds a value with more than 1 decimal places'),
        }),
      });
      const { rows } = await suite.db.query<{ id: number; v: string | null }>(
        'select id, v::text from scaled order by id',
      );
      expect({ path: i, rows }).toEqual({
        path: i,
        rows: [
          { id: 1, v: '1.5' },
          { id: 2, v: '2.5' },
          { id: 3, v: null },
        ],
      });
    }
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

  it("keeps every value exact whatever the source role's DateStyle, TimeZone, IntervalStyle and float digits", async () => {
    await suite.db.query(
      `create table styled (id int, d date, ts timestamp, tstz timestamptz, f float8, r real, iv interval)`,
    );
    await suite.db.query(
      `insert into styled values
         (1, '2024-03-04', '2024-03-04 05:06:07.123456', '2024-03-04 05:06:07.123456+00', 0.3, 16777217, '-1 year 2 mons -3 days 04:05:06.789'),
         (2, '0044-03-15 BC', '1999-12-31 23:59:59.999999', '1969-12-31 23:59:59.999999+00', 1e300/3, 0.1, '1 day -00:00:01')`,
    );
    // A role whose sessions print dates as DD/MM/YYYY, in India's time (IST), floats rounded, intervals as SQL does.
    const role = `executor_test_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
    await suite.db.query(`create role ${role} login`);
    try {
      for (const setting of [
        `datestyle = 'SQL, DMY'`,
        `timezone = 'Asia/Kolkata'`,
        `extra_float_digits = 0`,
        `intervalstyle = 'sql_standard'`,
      ])
        await suite.db.query(`alter role ${role} set ${setting}`);
      await suite.db.query(`grant all on schema ${suite.schema} to ${role}`);
      await suite.db.query(`create table styled_copy (like styled)`);
      await suite.db.query(`create table styled_params (like styled)`);
      await suite.db.query(`grant all on all tables in schema ${suite.schema} to ${role}`);
      const styledConfig = { ...config, user: role };
      for (const [from, into] of [
        [{ query: 'select * from styled' }, 'styled_copy'],
        // With params the rows come through a cursor instead of COPY: the same text.
        [{ query: 'select * from styled where id > $1', params: [0] }, 'styled_params'],
      ] as const) {
        const run = await runDag(linearDag(source('src', from), sink('out', into)), styledConfig);
        expect(run.outcome.status).toBe('succeeded');
        expect(run.lines.map((l) => l.message)).toContain('rows go to sink "out" as CSV, COPY to COPY');
        const { rows } = await suite.db.query<{ n: number }>(
          `select count(*)::int as n from ((table styled except all table ${into}) union all (table ${into} except all table styled)) d`,
        );
        expect({ into, differing: rows[0]?.n }).toEqual({ into, differing: 0 });
      }
      // A timestamp into a timestamptz column is read as UTC, as the typed write reads it, whatever the role's zone.
      await suite.db.query(`create table styled_tz (id int, ts timestamptz)`);
      await suite.db.query(`grant all on styled_tz to ${role}`);
      const run = await runDag(
        linearDag(source('src', { query: 'select id, ts from styled' }), sink('out', 'styled_tz')),
        styledConfig,
      );
      expect(run.lines.map((l) => l.message)).toContain('rows go to sink "out" as CSV, COPY to COPY');
      const { rows } = await suite.db.query<{ n: number }>(
        `select count(*)::int as n from styled s join styled_tz z using (id) where z.ts = s.ts at time zone 'UTC'`,
      );
      expect(rows[0]?.n).toBe(2);
    } finally {
      await suite.db.query(`drop owned by ${role}`);
      await suite.db.query(`drop role ${role}`);
    }
  });

  it("goes through DuckDB when the sink's table must be created or take new columns, and says so", async () => {
    await suite.db.query(`create table evolving (id bigint)`);
    const cases = [
      { into: 'made_by_sink', options: {}, query: 'select id, amount, tags from wide where id % 1000 = 0' },
      { into: 'evolving', options: { schema_evolution: 'add_columns' }, query: 'select id, note from wide limit 3' },
      // No rows at all: the table is still created, as on the DuckDB path.
      { into: 'made_empty', options: {}, query: 'select id, amount from wide where false' },
    ];
    for (const { into, options, query } of cases) {
      const run = await runDag(linearDag(source('src', { query }), sink('out', into, options)), config);
      expect({ into, status: run.outcome.status }).toEqual({ into, status: 'succeeded' });
      expect(run.lines.map((l) => l.message)).toContainEqual(
        expect.stringMatching(
          /^rows go to sink "out" through DuckDB: its table does not exist yet or takes new columns/,
        ),
      );
    }
    expect(await count(suite.db, 'made_by_sink')).toBe(20);
    expect((await suite.db.query(`select note from evolving where note is not null`)).rows).toHaveLength(3);
    expect(await count(suite.db, 'made_empty')).toBe(0);
  });

  it('leaves an upsert whose key is no unique key of the table to the typed write, which says so', async () => {
    await suite.db.query(`create table no_key (id bigint, v text)`);
    const run = await runDag(
      linearDag(
        source('src', { query: `select 1::bigint as id, 'a' as v` }),
        sink('out', 'no_key', { mode: 'upsert', key: ['id'] }),
      ),
      config,
    );
    expect(run.lines.map((l) => l.message)).toContainEqual(
      expect.stringMatching(/^rows go to sink "out" through DuckDB/),
    );
    expect(run.outcome.status).toBe('failed');
    expect(run.outcome.error).toMatchObject({ node_id: 'out', message: expect.stringContaining('unique') });
  });
});
