import { getDriver, type ConnectorDriver, type DuckDBTable } from '../src/index.js';
import { usePgSandbox } from './support/pg-sandbox.js';
import { allowPrivateNetworks } from './support/network-policy.js';
import { openTestWorkspace } from './support/run-workspace.js';
import { suiteFixture } from './support/suite-fixture.js';

// The typed PostgreSQL sink on a real PostgreSQL: every common DuckDB type, written into an existing table of the same
// types and into a table the sink creates, compares equal (`except` both ways) to the rows PostgreSQL itself parses.
allowPrivateNetworks();

const driver = getDriver('postgres') as Required<ConnectorDriver>;
const sandbox = usePgSandbox();
// A DuckDB locked down like a run's workspace: it may touch files only in its scratch folder.
const workspace = suiteFixture(openTestWorkspace, (ws) => ws.close());

// Column types on both sides; the PostgreSQL ones are what the sink creates (format_type's spelling).
const COLUMNS: ReadonlyArray<readonly [name: string, duckType: string, pgType: string]> = [
  ['id', 'integer', 'integer'],
  ['small', 'smallint', 'smallint'],
  ['regular', 'integer', 'integer'],
  ['big', 'bigint', 'bigint'],
  ['amount', 'decimal(12,2)', 'numeric(12,2)'],
  ['wide', 'decimal(38,10)', 'numeric(38,10)'],
  ['f', 'float', 'real'],
  ['d', 'double', 'double precision'],
  ['flag', 'boolean', 'boolean'],
  ['note', 'varchar', 'text'],
  ['day', 'date', 'date'],
  ['ts', 'timestamp', 'timestamp without time zone'],
  ['tstz', 'timestamptz', 'timestamp with time zone'],
  ['span', 'interval', 'interval'],
  ['uid', 'uuid', 'uuid'],
  ['doc', 'json', 'jsonb'],
  ['tags', 'varchar[]', 'text[]'],
  ['nums', 'integer[]', 'integer[]'],
  ['raw', 'blob', 'bytea'],
];

// The same rows in each database's own SQL (String.raw: backslashes are the SQL's). Row 3 is NULL in every column.
const DUCK_ROWS = String.raw`
  (1, -32768, -2147483648, -9223372036854775808, -9999999999.99, 1234567890123456789012345678.0123456789, 1.5, '-0',
   true, 'héllo "wörld", it''s ✓ 🚀' || chr(10) || 'line 2', '1969-07-20', '1900-01-01 00:00:00',
   '1969-12-31 23:59:59.999999+00', '-1 year -2 months -3 days -04:05:06.789', '123e4567-e89b-12d3-a456-426614174000',
   '{"a": [1, "x\"y"], "b": null}', ['a', 'b,c', 'd"e', 'f\g', NULL, '', 'NULL'], [1, NULL, -3], '\x00\x01\xFE'::blob),
  (2, 32767, 2147483647, 9223372036854775807, 9999999999.99, -0.0000000001, 3.4028235e38, 1e300,
   false, '', '2024-02-29', '2024-02-29 12:34:56.123456', '2024-02-29 12:34:56.123456+05',
   '1 month -1 day 100:00:00.000001', '00000000-0000-0000-0000-000000000000', '[]', [], [], ''::blob),
  (3, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
  (4, 0, 0, 0, 0.10, 0, '-inf', 'nan', NULL, 'NULL', '0044-03-15 (BC)', '2000-01-01 00:00:00', 'infinity',
   '0 seconds', NULL, '"text"', [NULL], NULL, NULL),
  (5, 1, 1, 1, 0.01, 0.5, 0.1, 0.1, true, '\.', '1900-02-28', '1970-01-01 00:00:00.000001', '-infinity',
   '-00:00:00.000001', NULL, '1.5e300', ['\\.'], [2147483647], '\x5C\x2E'::blob)`;
const PG_ROWS = String.raw`
  (1, -32768, -2147483648, -9223372036854775808, -9999999999.99, 1234567890123456789012345678.0123456789, 1.5, '-0',
   true, 'héllo "wörld", it''s ✓ 🚀' || chr(10) || 'line 2', '1969-07-20', '1900-01-01 00:00:00',
   '1969-12-31 23:59:59.999999+00', '-1 year -2 mons -3 days -04:05:06.789', '123e4567-e89b-12d3-a456-426614174000',
   '{"a": [1, "x\"y"], "b": null}', array['a', 'b,c', 'd"e', 'f\g', NULL, '', 'NULL'], array[1, NULL, -3], '\x0001fe'),
  (2, 32767, 2147483647, 9223372036854775807, 9999999999.99, -0.0000000001, 3.4028235e38, 1e300,
   false, '', '2024-02-29', '2024-02-29 12:34:56.123456', '2024-02-29 12:34:56.123456+05',
   '1 mon -1 day 100:00:00.000001', '00000000-0000-0000-0000-000000000000', '[]', '{}', '{}', ''),
  (3, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
  (4, 0, 0, 0, 0.10, 0, '-Infinity', 'NaN', NULL, 'NULL', '0044-03-15 BC', '2000-01-01 00:00:00', 'infinity',
   '0 seconds', NULL, '"text"', array[NULL]::text[], NULL, NULL),
  (5, 1, 1, 1, 0.01, 0.5, 0.1, 0.1, true, '\.', '1900-02-28', '1970-01-01 00:00:00.000001', '-infinity',
   '-00:00:00.000001', NULL, '1.5e300', array['\\.'], array[2147483647], '\x5c2e')`;

const columnList = (side: 1 | 2) => COLUMNS.map((c) => `${c[0]} ${c[side]}`).join(', ');

beforeAll(async () => {
  await sandbox.admin.query(`set timezone to 'UTC'`);
  await sandbox.admin.query(`create table expected (${columnList(2)})`);
  await sandbox.admin.query(`insert into expected values ${PG_ROWS}`);

  await workspace.connection.run(`create table src (${columnList(1)})`);
  await workspace.connection.run(`insert into src values ${DUCK_ROWS}`);
});

const source = (table = 'src'): DuckDBTable => workspace.target(table);

/** Rows of `a` not in `b`, and of `b` not in `a` (NULLs compare equal in EXCEPT). */
async function difference(a: string, b: string): Promise<{ extra: unknown[]; missing: unknown[] }> {
  const extra = (await sandbox.admin.query(`select * from ${a} except select * from ${b}`)).rows;
  const missing = (await sandbox.admin.query(`select * from ${b} except select * from ${a}`)).rows;
  return { extra, missing };
}

async function columnTypes(table: string): Promise<Array<[string, string]>> {
  const { rows } = await sandbox.admin.query<{ name: string; type: string }>(
    `select attname as name, format_type(atttypid, atttypmod) as type from pg_attribute
      where attrelid = $1::regclass and attnum > 0 and not attisdropped order by attnum`,
    [table],
  );
  return rows.map((r) => [r.name, r.type]);
}

/** What EXCEPT cannot see: -0 equals 0, and intervals compare after normalising (1 day = 24 hours). */
async function exactTexts(table: string): Promise<unknown[]> {
  const { rows } = await sandbox.admin.query<Record<string, unknown>>(
    `select id, d::text as d, f::text as f, span::text as span, tstz::text as tstz from ${table} order by id`,
  );
  return rows;
}

describe('postgres typed write (writeFromTable)', () => {
  it('writes every common type into an existing table of the same types, exactly', async () => {
    await sandbox.admin.query('create table existing (like expected)');
    await expect(
      driver.writeFromTable(sandbox.config, { table: 'existing', mode: 'append' }, source()),
    ).resolves.toEqual({ rows_written: 5 });

    expect(await difference('existing', 'expected')).toEqual({ extra: [], missing: [] });
    expect(await exactTexts('existing')).toEqual(await exactTexts('expected'));
    expect((await exactTexts('existing'))[0]).toMatchObject({
      d: '-0',
      span: '-1 years -2 mons -3 days -04:05:06.789',
    });
    // The CSV file lived in the scratch folder only while the write ran.
    expect(await workspace.scratchEntries()).toEqual([]);
  });

  it('creates a missing table with the documented types and the same rows', async () => {
    await expect(
      driver.writeFromTable(sandbox.config, { table: 'created', mode: 'append' }, source()),
    ).resolves.toEqual({ rows_written: 5 });

    expect(await columnTypes('created')).toEqual(COLUMNS.map(([name, , pgType]) => [name, pgType]));
    expect(await difference('created', 'expected')).toEqual({ extra: [], missing: [] });
    expect(await exactTexts('created')).toEqual(await exactTexts('expected'));
  });

  it('maps the other DuckDB types as docs/type-mapping.md says, values included', async () => {
    await workspace.connection.run(String.raw`create table others as select
        170141183460469231731687303715884105727::hugeint as huge, 18446744073709551615::ubigint as ubig,
        (-128)::tinyint as tiny, 255::utinyint as utiny, 65535::usmallint as usmall, 4294967295::uinteger as uint,
        'b'::enum('a', 'b') as mood, {'k': 'v', 'n': [1, 2]} as rec, [[1, 2], [3]] as grid, map {'x': 1} as dict,
        '23:59:59.999999'::time as clock, '12:34:56+02:30'::timetz as clock_tz, '2024-02-29 12:00:00.123456789'::timestamp_ns as ns,
        '2024-02-29 12:00:00.123'::timestamp_ms as ms, '2024-02-29 12:00:00'::timestamp_s as s,
        [1.5, NULL]::decimal(4,1)[] as prices, ['2024-02-29 01:02:03+00']::timestamptz[] as stamps, ['\x01'::blob] as blobs,
        '101'::bit as bits, [1, 2, 3]::integer[3] as fixed`);
    await driver.writeFromTable(sandbox.config, { table: 'others', mode: 'append' }, source('others'));

    expect(Object.fromEntries(await columnTypes('others'))).toEqual({
      huge: 'numeric(39,0)',
      ubig: 'numeric(20,0)',
      tiny: 'smallint',
      utiny: 'smallint',
      usmall: 'integer',
      uint: 'bigint',
      mood: 'text',
      rec: 'jsonb',
      grid: 'jsonb',
      dict: 'jsonb',
      clock: 'time without time zone',
      clock_tz: 'time with time zone',
      ns: 'timestamp without time zone',
      ms: 'timestamp(3) without time zone',
      s: 'timestamp(0) without time zone',
      prices: 'numeric(4,1)[]',
      stamps: 'timestamp with time zone[]',
      blobs: 'bytea[]',
      bits: 'bit varying',
      fixed: 'integer[]',
    });
    const { rows } = await sandbox.admin
      .query(`select huge::text, ubig::text, tiny, utiny, usmall, uint::text, mood, rec, grid,
      dict, clock::text, clock_tz::text, ns::text, ms::text, s::text, prices::text, stamps::text, blobs::text, bits::text, fixed from others`);
    expect(rows).toEqual([
      {
        huge: '170141183460469231731687303715884105727',
        ubig: '18446744073709551615',
        tiny: -128,
        utiny: 255,
        usmall: 65535,
        uint: '4294967295',
        mood: 'b',
        rec: { k: 'v', n: [1, 2] },
        grid: [[1, 2], [3]],
        dict: { x: 1 },
        clock: '23:59:59.999999',
        clock_tz: '12:34:56+02:30',
        ns: '2024-02-29 12:00:00.123457',
        ms: '2024-02-29 12:00:00.123',
        s: '2024-02-29 12:00:00',
        prices: '{1.5,NULL}',
        stamps: '{"2024-02-29 01:02:03+00"}',
        blobs: '{"\\\\x01"}',
        bits: '101',
        fixed: [1, 2, 3],
      },
    ]);
  });
});
