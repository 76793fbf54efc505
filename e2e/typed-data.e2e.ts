import type { Run } from '@conduit/contracts';
import { startStack, type Stack } from '@conduit/local-stack';
import pg from 'pg';
import { create, createPipelineAndJob, nodeOf, triggerRun, uniqueName, waitForRunEnd } from './support/helpers.js';
import { createTargetDatabase, type TargetDatabase } from './support/target-database.js';
import { EXPECTED_DOUBLED, asMoney, matrixDag, moneyDag } from './support/money-pipeline.js';

// Issue 15's type matrix, end to end: a PostgreSQL table with every common type goes through a `select *` transform
// (so the source's typed read and the sink's typed write are used, with DuckDB types in between) into an existing
// table of the same types and into a table the sink creates; `except` both ways is empty. And a transform's arithmetic
// on numeric columns is exact, to the cent.
let stack: Stack;
let targetDb: TargetDatabase;
let db: pg.Client;
let connectorId: string;

const MATRIX_COLUMNS = `id int primary key, small smallint, regular int, big bigint, amount numeric(12,2), unbounded numeric,
  f real, d double precision, flag boolean, note text, short varchar(20), day date, ts timestamp, tstz timestamptz,
  span interval, uid uuid, doc json, docb jsonb, tags text[], nums int[], raw bytea, feeling mood`;

// Row 3 is NULL in every column but its id.
const MATRIX_ROWS = String.raw`
  (1, -32768, -2147483648, -9223372036854775808, -9999999999.99, 123456789012345678.123456789, 1.5, '-0', true,
   'héllo "wörld", it''s ✓ 🚀' || chr(10) || 'line, 2', 'a ''b'' "c"', '1969-07-20', '1900-01-01 00:00:00',
   '1969-12-31 23:59:59.999999+00', '-1 year -2 mons -3 days -04:05:06.789', '123e4567-e89b-12d3-a456-426614174000',
   '{"b": 1, "a": [1, "x\"y", null]}', '{"k": null, "n": 1.50}', array['a', 'b,c', 'd"e', 'f\g', NULL, '', 'NULL'],
   array[1, NULL, -3], '\x0001fe', 'happy'),
  (2, 32767, 2147483647, 9223372036854775807, 9999999999.99, -0.000000001, 3.4028235e38, 1e300, false,
   '', '', '2024-02-29', '2024-02-29 12:34:56.123456', '2024-02-29 12:34:56.123456+05',
   '1 mon -1 day 100:00:00.000001', '00000000-0000-0000-0000-000000000000', '[]', '"s"', '{}', '{}', '', 'sad'),
  (3, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
   NULL, NULL, NULL),
  (4, 0, 0, 0, 0.10, 42, 0.1, 0.1, NULL, 'NULL', 'x', '1900-02-28', '2000-02-29 00:00:00', '2000-01-01 00:00:00+00',
   '-00:00:00.000001', NULL, 'null', '1.5e300', array[NULL]::text[], array[2147483647], '\x5c2e', 'ok')`;

// What the created table's columns are (docs/type-mapping.md, both directions); the unbounded numeric's scale is the
// largest its values have, so it is checked apart.
const CREATED_TYPES: Record<string, string> = {
  id: 'integer', small: 'smallint', regular: 'integer', big: 'bigint', amount: 'numeric(12,2)', f: 'real',
  d: 'double precision', flag: 'boolean', note: 'text', short: 'text', day: 'date', ts: 'timestamp without time zone',
  tstz: 'timestamp with time zone', span: 'interval', uid: 'uuid', doc: 'jsonb', docb: 'jsonb', tags: 'text[]',
  nums: 'integer[]', raw: 'bytea', feeling: 'text',
};

/** The matrix's columns as the source's types (json as jsonb, which has equality), for `except` across tables. */
const AS_SOURCE_TYPES = `id, small, regular, big, amount, unbounded::numeric, f, d, flag, note, short::varchar(20), day, ts,
  tstz, span, uid, doc::jsonb, docb, tags, nums, raw, feeling::text::mood`;

beforeAll(async () => {
  targetDb = await createTargetDatabase();
  db = new pg.Client({ connectionString: targetDb.url });
  await db.connect();
  await db.query(`set timezone to 'UTC'`);
  await db.query(`create type mood as enum ('sad', 'ok', 'happy')`);
  await db.query(`create table matrix (${MATRIX_COLUMNS})`);
  await db.query(`insert into matrix values ${MATRIX_ROWS}`);
  await db.query('create table matrix_existing (like matrix)');
  await db.query('create table payments (id int, amount numeric, note text)');
  await db.query(`insert into payments select i, round(((i * 37) % 10000 - 2000) / 100.0, 2), 'p' || i from generate_series(1, 2000) i`);
  await db.query(`insert into payments values (2001, 0.1, 'a dime'), (2002, 0.2, 'two dimes')`);

  stack = await startStack({ CONNECTOR_ALLOW_PRIVATE_NETWORKS: 'true' });
  connectorId = (await create(stack, '/v2/connectors', { name: uniqueName('pg'), type: 'postgres', config: targetDb.config() })).id;
}, 120_000);

afterAll(async () => {
  await db?.end();
  await stack?.stop();
  await targetDb?.drop();
});

const source = (id: string, table: string) => ({ id, type: 'source', config: { connector_id: connectorId, table } });
const transform = (id: string, sql: string) => ({ id, type: 'transform', config: { sql } });
const sink = (id: string, table: string) => ({ id, type: 'sink', config: { connector_id: connectorId, table, mode: 'append' } });

async function runToEnd(dag: Record<string, unknown>) {
  const { jobId } = await createPipelineAndJob(stack, dag);
  const queued = await triggerRun(stack, jobId);
  return waitForRunEnd(stack, jobId, queued.id, 90_000);
}

/** The run's status and its nodes' errors, so that a failure shows why. */
function outcome(run: Run): { status: string; errors: unknown[] } {
  return { status: run.status, errors: run.nodes.filter((n) => n.error !== null).map((n) => ({ node: n.id, error: n.error })) };
}

async function except(a: string, b: string): Promise<unknown[]> {
  return (await db.query(`${a} except ${b}`)).rows;
}

/** What `except` cannot see: -0 equals 0, and intervals compare normalised (1 day = 24 hours). */
async function exactTexts(table: string): Promise<unknown[]> {
  return (await db.query(`select id, d::text as d, span::text as span, tstz::text as tstz, raw::text as raw from ${table} order by id`)).rows;
}

describe('typed data end to end (postgres -> select * -> postgres)', () => {
  it('keeps every common type exactly, into an existing table and into one the sink creates', async () => {
    const run = await runToEnd(matrixDag({ source, transform, sink }));
    expect(outcome(run)).toEqual({ status: 'succeeded', errors: [] });
    expect(nodeOf(run, 'into_existing')).toMatchObject({ status: 'succeeded', rows_out: 4 });
    expect(nodeOf(run, 'into_created')).toMatchObject({ status: 'succeeded', rows_out: 4 });
    // The transform saw the source's types, not values guessed from JS objects.
    expect(nodeOf(run, 'everything').columns).toEqual(expect.arrayContaining([
      expect.objectContaining({ name: 'big', type: 'BIGINT' }),
      expect.objectContaining({ name: 'amount', type: 'DECIMAL(12,2)' }),
      expect.objectContaining({ name: 'day', type: 'DATE' }),
      expect.objectContaining({ name: 'nums', type: 'INTEGER[]' }),
    ]));

    const original = `select ${AS_SOURCE_TYPES} from matrix`;
    for (const table of ['matrix_existing', 'matrix_created']) {
      const copy = `select ${AS_SOURCE_TYPES} from ${table}`;
      expect({ table, extra: await except(copy, original), missing: await except(original, copy) }).toEqual({ table, extra: [], missing: [] });
      expect(await exactTexts(table)).toEqual(await exactTexts('matrix'));
    }
    expect((await exactTexts('matrix_created'))[0]).toMatchObject({ d: '-0', span: '-1 years -2 mons -3 days -04:05:06.789' });

    const { rows } = await db.query<{ name: string; type: string }>(
      `select attname as name, format_type(atttypid, atttypmod) as type from pg_attribute
        where attrelid = 'matrix_created'::regclass and attnum > 0 and not attisdropped order by attnum`,
    );
    const types = Object.fromEntries(rows.map((r) => [r.name, r.type]));
    expect(types['unbounded']).toMatch(/^numeric/);
    delete types['unbounded'];
    expect(types).toEqual(CREATED_TYPES);
  });

  it('computes on numeric columns exactly: a filter, a product and sums to the cent', async () => {
    const run = await runToEnd(moneyDag({ source, transform, sink }));
    expect(outcome(run)).toEqual({ status: 'succeeded', errors: [] });

    const expected = EXPECTED_DOUBLED;
    const written = 'select id, doubled::numeric from payments_doubled';
    expect(await except(written, expected)).toEqual([]);
    expect(await except(expected, written)).toEqual([]);

    // The exact sum, in cents, computed here from the values as PostgreSQL holds them.
    const { rows: amounts } = await db.query<{ cents: string }>('select (amount * 100)::bigint::text as cents from payments');
    const cents = amounts.reduce((sum, r) => sum + BigInt(r.cents), 0n);
    // As written, not rounded here: a float anywhere on the way would show in the text.
    const { rows: totals } = await db.query('select total::text as total, tripled::text as tripled, n::int as n from payments_totals');
    expect(totals).toEqual([{ total: asMoney(cents), tripled: asMoney(cents * 3n), n: 2002 }]);
  });
});
