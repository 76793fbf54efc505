import { startStack, type Stack } from '@conduit/testing';
import mysql from 'mysql2/promise';
import { create, nodeOf, runDagToEnd, runOutcome, uniqueName } from './support/helpers.js';
import { EXPECTED_DOUBLED, asMoney, matrixDag, moneyDag } from './support/money-pipeline.js';
import { createMariaDatabase, type MariaDatabase } from './support/maria-database.js';

// Issue 15's type matrix from MySQL, end to end: a MariaDB table with the common MySQL types goes through a
// `select *` transform (the driver's typed read, DuckDB types in between, its typed write) into an existing table of
// the same types and into a table the sink creates; `except` both ways is empty, and sums of DECIMAL are exact.
let stack: Stack;
let mariaDb: MariaDatabase;
let maria: mysql.Connection;
let connectorId: string;

const MATRIX_COLUMNS = `id int primary key, flag bool, tiny tinyint, utiny tinyint unsigned, small smallint,
  medium mediumint unsigned, regular int, big bigint, ubig bigint unsigned, amount decimal(12,2), wide decimal(30,10),
  dbl double, d date, dt datetime(6), ts timestamp(6) null, tm time(6), yr year, name varchar(100), body text,
  bin varbinary(16), blb blob, doc json, mood enum('sad','ok','happy')`;

// Row 3 is NULL in every column but its id.
const MATRIX_ROWS = String.raw`
  (1, true, -128, 255, -32768, 16777215, -2147483648, -9223372036854775808, 18446744073709551615, -9999999999.99,
   12345678901234567890.0123456789, 1e300, '1969-07-20', '1900-01-01 00:00:00.000001', '2038-01-19 03:14:07.999999',
   '23:59:59.999999', 2155, 'héllo "wörld", it''s ✓ 🚀', concat('a,b\\c', char(10), 'line 2'), x'00ff10', x'',
   '{"b": 1, "a": [1, "x\\"y", null]}', 'happy'),
  (2, false, 127, 0, 32767, 0, 2147483647, 9223372036854775807, 0, 9999999999.99, -0.0000000001, -2.5e-300,
   '2024-02-29', '2024-02-29 12:34:56.123456', '1970-01-01 00:00:01', '00:00:00', 1901, '', 'NULL', x'', x'deadbeef',
   '[]', 'sad'),
  (3, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
   NULL, NULL, NULL),
  (4, NULL, 0, 1, 0, 1, 0, 0, 9007199254740993, 0.10, 0.1, 0.1, '1900-02-28', '2000-02-29 00:00:00', NULL, '12:00:00',
   2000, 'NULL', 'x', NULL, x'5c2e', 'null', 'ok')`;

// What the created table's columns are (docs/type-mapping.md, both directions).
const CREATED_TYPES: Record<string, string> = {
  id: 'int(11)',
  flag: 'tinyint(1)',
  tiny: 'tinyint(4)',
  utiny: 'tinyint(3) unsigned',
  small: 'smallint(6)',
  medium: 'int(10) unsigned',
  regular: 'int(11)',
  big: 'bigint(20)',
  ubig: 'bigint(20) unsigned',
  amount: 'decimal(12,2)',
  wide: 'decimal(30,10)',
  dbl: 'double',
  d: 'date',
  dt: 'datetime(6)',
  ts: 'datetime(6)',
  tm: 'time(6)',
  yr: 'smallint(6)',
  name: 'longtext',
  body: 'longtext',
  bin: 'longblob',
  blb: 'longblob',
  doc: 'longtext',
  mood: 'longtext',
};

beforeAll(async () => {
  mariaDb = await createMariaDatabase('all');
  maria = mariaDb.root;
  // TIMESTAMP columns are compared as UTC, as the connector reads and writes them.
  await maria.query("set time_zone = '+00:00'");
  await maria.query(`create table matrix (${MATRIX_COLUMNS})`);
  await maria.query(`insert into matrix values ${MATRIX_ROWS}`);
  await maria.query('create table matrix_existing like matrix');
  await maria.query('create table payments (id int primary key, amount decimal(10,2), note varchar(40))');
  await maria.query('create table digits (d int)');
  await maria.query('insert into digits values (0), (1), (2), (3), (4), (5), (6), (7), (8), (9)');
  await maria.query(`insert into payments select n, round(((n * 37) % 10000 - 2000) / 100, 2), concat('p', n) from
    (select 1 + a.d + 10 * b.d + 100 * c.d + 1000 * e.d as n from digits a, digits b, digits c, digits e) seq where n <= 2000`);
  await maria.query("insert into payments values (2001, 0.1, 'a dime'), (2002, 0.2, 'two dimes')");

  stack = await startStack({ CONNECTOR_ALLOW_PRIVATE_NETWORKS: 'true' });
  const config = mariaDb.config();
  connectorId = (await create(stack, '/v2/connectors', { name: uniqueName('maria'), type: 'mysql', config })).id;
}, 120_000);

afterAll(async () => {
  await stack?.stop();
  await mariaDb?.drop();
});

const source = (id: string, table: string) => ({ id, type: 'source', config: { connector_id: connectorId, table } });
const transform = (id: string, sql: string) => ({ id, type: 'transform', config: { sql } });
const sink = (id: string, table: string, extra: Record<string, unknown> = {}) => ({
  id,
  type: 'sink',
  config: { connector_id: connectorId, table, mode: 'append', ...extra },
});

async function rows(sql: string): Promise<Record<string, unknown>[]> {
  return (await maria.query(sql))[0] as Record<string, unknown>[];
}

/** Rows of `a` that `b` lacks (MariaDB's EXCEPT takes NULLs as equal). */
async function except(a: string, b: string): Promise<Record<string, unknown>[]> {
  return rows(`${a} except ${b}`);
}

describe('typed data end to end (mysql -> select * -> mysql)', () => {
  it('keeps every common type exactly, into an existing table and into one the sink creates', async () => {
    const run = await runDagToEnd(stack, matrixDag({ source, transform, sink }, { key: ['id'] }));
    expect(runOutcome(run)).toEqual({ status: 'succeeded', errors: [] });
    expect(nodeOf(run, 'into_existing')).toMatchObject({ status: 'succeeded', rows_out: 4 });
    expect(nodeOf(run, 'into_created')).toMatchObject({ status: 'succeeded', rows_out: 4 });
    // The transform saw the declared types.
    expect(nodeOf(run, 'everything').columns).toEqual(
      expect.arrayContaining([
        { name: 'ubig', type: 'UBIGINT' },
        { name: 'amount', type: 'DECIMAL(12,2)' },
        { name: 'ts', type: 'TIMESTAMP WITH TIME ZONE' },
        { name: 'doc', type: 'JSON' },
        { name: 'blb', type: 'BLOB' },
        { name: 'd', type: 'DATE' },
      ]),
    );

    const original = 'select * from matrix';
    for (const table of ['matrix_existing', 'matrix_created']) {
      const copy = `select * from ${table}`;
      expect({ table, extra: await except(copy, original), missing: await except(original, copy) }).toEqual({
        table,
        extra: [],
        missing: [],
      });
      expect(await rows(`select count(*) as n from ${table}`)).toEqual([{ n: 4 }]);
    }
    // Byte for byte where EXCEPT could compare loosely (collations, JSON text, numbers as text).
    const texts = (table: string) =>
      rows(`select id, hex(name) name, hex(body) body, hex(blb) blb, cast(doc as char) doc,
      cast(ubig as char) ubig, cast(wide as char) wide, cast(dbl as char) dbl, cast(ts as char) ts from ${table} order by id`);
    expect(await texts('matrix_created')).toEqual(await texts('matrix'));
    expect(await texts('matrix_existing')).toEqual(await texts('matrix'));

    const types = await rows(`select column_name as c, column_type as t, column_key as k from information_schema.columns
      where table_schema = database() and table_name = 'matrix_created' order by ordinal_position`);
    expect(Object.fromEntries(types.map((r) => [r['c'], r['t']]))).toEqual(CREATED_TYPES);
    expect(types.filter((r) => r['k'] === 'PRI').map((r) => r['c'])).toEqual(['id']);
  });

  it('computes on DECIMAL columns exactly: a filter, a product and sums to the cent', async () => {
    const run = await runDagToEnd(stack, moneyDag({ source, transform, sink }));
    expect(runOutcome(run)).toEqual({ status: 'succeeded', errors: [] });

    const expected = EXPECTED_DOUBLED;
    const written = 'select id, doubled from payments_doubled';
    expect(await except(written, expected)).toEqual([]);
    expect(await except(expected, written)).toEqual([]);

    // The exact sum, in cents, computed here from the values as MySQL holds them.
    const amounts = await rows('select cast(amount * 100 as signed) as cents from payments');
    const cents = amounts.reduce((sum, r) => sum + BigInt(Number(r['cents'])), 0n);
    // As written, not rounded here: a float anywhere on the way would show in the text.
    const totals = await rows(
      'select cast(total as char) as total, cast(tripled as char) as tripled, n from payments_totals',
    );
    expect(totals).toEqual([{ total: asMoney(cents), tripled: asMoney(cents * 3n), n: 2002 }]);
  });
});
