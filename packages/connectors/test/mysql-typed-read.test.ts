import { ConnectorError, getDriver, type ConnectorDriver, type DuckDBTable } from '../src/index.js';
import { useMysqlSandbox } from './support/mysql-sandbox.js';
import { allowPrivateNetworks } from './support/network-policy.js';
import { openTestWorkspace } from './support/run-workspace.js';
import { suiteFixture } from './support/suite-fixture.js';
import { waitFor } from '@conduit/testing';

// The test server listens on this machine, which the default network policy refuses.
allowPrivateNetworks();

const driver = getDriver('mysql') as ConnectorDriver;
const sandbox = useMysqlSandbox();
// A DuckDB locked down like a run's workspace: it may touch files only in its scratch folder.
const workspace = suiteFixture(openTestWorkspace, (ws) => ws.close());

beforeAll(async () => {
  await sandbox.admin.query(`create table matrix (
    id int primary key, flag bool, tiny tinyint, utiny tinyint unsigned, small smallint, usmall smallint unsigned,
    medium mediumint, umedium mediumint unsigned, i int, ui int unsigned, big bigint, ubig bigint unsigned,
    amount decimal(12,2), wide decimal(65,10), dbl double, flt float, d date, dt datetime(6), ts timestamp(6) null,
    tm time(6), yr year, name varchar(100), body text, fixed char(5), bin varbinary(16), blb blob, doc json,
    mood enum('sad','ok','happy'), tags set('a','b','c'), bits bit(10), bit1 bit(1))`);
  await sandbox.admin.query(`insert into matrix values
    (1, true, -128, 255, -32768, 65535, -8388608, 16777215, -2147483648, 4294967295, -9223372036854775808,
     18446744073709551615, 9999999999.99, 1234567890123456789012345678.0123456789, 1e300, 3.25, '1969-07-20', '1900-01-01 00:00:00.000001',
     '2038-01-19 03:14:07.999999', '23:59:59.999999', 2155, 'ünï "q", x\ny', 'a,b\\\\c ''quoted'' 🎉', 'ab', x'00ff10', x'',
     '{"a": [1, 2.50, null], "b": "x"}', 'happy', 'a,c', b'1000000001', b'1'),
    (2, false, 127, 0, 32767, 0, 8388607, 0, 2147483647, 0, 9223372036854775807, 0, -0.01, -0.0000000001, -2.5e-300, -1.5,
     '2024-02-29', '2024-02-29 12:34:56', '1970-01-01 00:00:01', '00:00:00', 1901, '', '', '', x'', x'deadbeef', '[]',
     'sad', '', b'0', b'0'),
    (3, null, null, null, null, null, null, null, null, null, null, null, null, null, null, null, null, null, null, null,
     null, null, null, null, null, null, null, null, null, null, null)`);
});

const target = (table: string): DuckDBTable => workspace.target(table);

async function rows(sql: string): Promise<Record<string, unknown>[]> {
  return (await workspace.connection.runAndReadAll(sql)).getRowObjectsJson();
}

describe('mysql readIntoTable', () => {
  it('declares DuckDB types from the field metadata', async () => {
    const result = await driver.readIntoTable!(sandbox.config, { table: 'matrix' }, target('m'));
    expect(result.rows).toBe(3);
    const declared = Object.fromEntries(result.columns.map((c) => [c.name, c.type]));
    expect(declared).toEqual({
      id: 'INTEGER',
      flag: 'BOOLEAN',
      tiny: 'TINYINT',
      utiny: 'UTINYINT',
      small: 'SMALLINT',
      usmall: 'USMALLINT',
      medium: 'INTEGER',
      umedium: 'UINTEGER',
      i: 'INTEGER',
      ui: 'UINTEGER',
      big: 'BIGINT',
      ubig: 'UBIGINT',
      amount: 'DECIMAL(12,2)',
      wide: 'DECIMAL(38,10)',
      dbl: 'DOUBLE',
      flt: 'FLOAT',
      d: 'DATE',
      dt: 'TIMESTAMP',
      ts: 'TIMESTAMP WITH TIME ZONE',
      tm: 'TIME',
      yr: 'SMALLINT',
      name: 'VARCHAR',
      body: 'VARCHAR',
      fixed: 'VARCHAR',
      bin: 'BLOB',
      blb: 'BLOB',
      doc: 'JSON',
      mood: 'VARCHAR',
      tags: 'VARCHAR',
      bits: 'UBIGINT',
      bit1: 'BOOLEAN',
    });
    expect(result.columns.find((c) => c.name === 'ubig')?.source_type).toBe('bigint unsigned');
    expect(result.columns.find((c) => c.name === 'wide')?.source_type).toBe('decimal(65,10)');
    const sourceTypes = Object.fromEntries(result.columns.map((c) => [c.name, c.source_type]));
    expect(sourceTypes).toMatchObject({
      name: 'varchar',
      body: 'text',
      fixed: 'char',
      bin: 'varbinary',
      blb: 'blob',
      mood: 'enum',
      tags: 'set',
      ts: 'timestamp(6)',
      dt: 'datetime(6)',
      utiny: 'tinyint unsigned',
      flag: 'tinyint(1)',
      bits: 'bit(10)',
    });
    // The table has exactly the declared types, and JSON stays JSON.
    const described = await rows(
      `select column_name, data_type from information_schema.columns where table_name = 'm' order by ordinal_position`,
    );
    expect(described.map((r) => r['data_type'])).toEqual(result.columns.map((c) => c.type));
    // The scratch file is gone once the read is done.
    expect(await workspace.scratchEntries()).toEqual([]);
  });

  it('loads every value exactly, NULL in every column, empty strings as empty strings', async () => {
    await driver.readIntoTable!(sandbox.config, { query: 'select * from matrix order by id' }, target('v'));
    const values =
      await rows(`select id, flag, tiny, utiny, small, usmall, medium, umedium, i, ui, big::VARCHAR big, ubig::VARCHAR ubig,
      amount::VARCHAR amount, wide::VARCHAR wide, dbl, flt, d::VARCHAR d, dt::VARCHAR dt, epoch_us(ts)::VARCHAR ts, tm::VARCHAR tm, yr, name, body,
      fixed, hex(bin) bin, hex(blb) blb, doc::VARCHAR doc, mood, tags, bits::VARCHAR bits, bit1 from v order by id`);
    expect(values).toEqual([
      {
        id: 1,
        flag: true,
        tiny: -128,
        utiny: 255,
        small: -32768,
        usmall: 65535,
        medium: -8388608,
        umedium: 16777215,
        i: -2147483648,
        ui: 4294967295,
        big: '-9223372036854775808',
        ubig: '18446744073709551615',
        amount: '9999999999.99',
        wide: '1234567890123456789012345678.0123456789',
        dbl: 1e300,
        flt: 3.25,
        d: '1969-07-20',
        dt: '1900-01-01 00:00:00.000001',
        ts: '2147483647999999',
        tm: '23:59:59.999999',
        yr: 2155,
        name: 'ünï "q", x\ny',
        body: "a,b\\c 'quoted' 🎉",
        fixed: 'ab',
        bin: '00FF10',
        blb: '',
        doc: '{"a": [1, 2.50, null], "b": "x"}',
        mood: 'happy',
        tags: 'a,c',
        bits: '513',
        bit1: true,
      },
      {
        id: 2,
        flag: false,
        tiny: 127,
        utiny: 0,
        small: 32767,
        usmall: 0,
        medium: 8388607,
        umedium: 0,
        i: 2147483647,
        ui: 0,
        big: '9223372036854775807',
        ubig: '0',
        amount: '-0.01',
        wide: '-0.0000000001',
        dbl: -2.5e-300,
        flt: -1.5,
        d: '2024-02-29',
        dt: '2024-02-29 12:34:56',
        ts: '1000000',
        tm: '00:00:00',
        yr: 1901,
        name: '',
        body: '',
        fixed: '',
        bin: '',
        blb: 'DEADBEEF',
        doc: '[]',
        mood: 'sad',
        tags: '',
        bits: '0',
        bit1: false,
      },
      {
        id: 3,
        flag: null,
        tiny: null,
        utiny: null,
        small: null,
        usmall: null,
        medium: null,
        umedium: null,
        i: null,
        ui: null,
        big: null,
        ubig: null,
        amount: null,
        wide: null,
        dbl: null,
        flt: null,
        d: null,
        dt: null,
        ts: null,
        tm: null,
        yr: null,
        name: null,
        body: null,
        fixed: null,
        bin: null,
        blb: null,
        doc: null,
        mood: null,
        tags: null,
        bits: null,
        bit1: null,
      },
    ]);
    // Arithmetic on the DECIMAL column is exact.
    expect(await rows('select sum(amount)::VARCHAR s from v')).toEqual([{ s: '9999999999.98' }]);
  });

  it('creates an empty table with the declared types when the query has no rows', async () => {
    const result = await driver.readIntoTable!(
      sandbox.config,
      { query: 'select id, amount from matrix where id < 0' },
      target('e'),
    );
    expect(result).toEqual({
      rows: 0,
      columns: [
        { name: 'id', type: 'INTEGER', source_type: 'int' },
        { name: 'amount', type: 'DECIMAL(12,2)', source_type: 'decimal(12,2)' },
      ],
    });
    expect(await rows(`select count(*)::INTEGER n from e`)).toEqual([{ n: 0 }]);
  });

  it('refuses values it cannot keep: zero dates, durations, a TINYINT(1) that is not 0 or 1, oversized decimals', async () => {
    await sandbox.admin.query("set session sql_mode = ''");
    await sandbox.admin.query('create table odd (z date, dur time, b bool, w decimal(60,30))');
    await sandbox.admin.query("insert into odd values ('0000-00-00', '-01:00:00', 2, 123456789.5)");
    const fails = async (column: string) =>
      driver.readIntoTable!(sandbox.config, { query: `select ${column} from odd` }, target('o')).catch(
        (e: unknown) => e,
      );
    const zero = await fails('z');
    expect(zero).toBeInstanceOf(ConnectorError);
    expect(zero).toMatchObject({
      errorClass: 'config_error',
      message: expect.stringMatching(/column "z" .*zero date/),
    });
    expect(await fails('dur')).toMatchObject({
      errorClass: 'config_error',
      message: expect.stringMatching(/column "dur" .*not a time of day/),
    });
    expect(await fails('b')).toMatchObject({
      errorClass: 'config_error',
      message: expect.stringMatching(/column "b" .*not 0 or 1/),
    });
    expect(await fails('w')).toMatchObject({
      errorClass: 'config_error',
      message: expect.stringMatching(/column "w" .*does not fit DuckDB's DECIMAL\(38,30\)/),
    });
    expect(await fails('z, z')).toMatchObject({
      errorClass: 'config_error',
      message: expect.stringMatching(/"z" twice/),
    });
    // A value that fits the narrowed DECIMAL is kept exactly.
    await sandbox.admin.query('update odd set w = 12345678.000000000000000000000000000001');
    await driver.readIntoTable!(sandbox.config, { query: 'select w from odd' }, target('o'));
    expect(await rows('select w::VARCHAR w from o')).toEqual([{ w: '12345678.000000000000000000000000000001' }]);
    expect(await workspace.scratchEntries()).toEqual([]);
  });

  it("reads a row longer than DuckDB's default CSV line (a 3 MB blob)", async () => {
    await sandbox.admin.query('create table large (id int, payload longblob)');
    await sandbox.admin.query("insert into large values (1, repeat(x'ab01', 1500000)), (2, null)");
    expect((await driver.readIntoTable!(sandbox.config, { table: 'large' }, target('large'))).rows).toBe(2);
    expect(await rows('select id, octet_length(payload)::INTEGER n, md5(payload) h from large order by id')).toEqual([
      {
        id: 1,
        n: 3_000_000,
        h: ((await sandbox.admin.query('select md5(payload) h from large where id = 1'))[0] as { h: string }[])[0]!.h,
      },
      { id: 2, n: null, h: null },
    ]);
  });

  it('stops with the abort reason, killing the query, leaving no file and no table', async () => {
    const controller = new AbortController();
    const reason = new Error('canceled by the test');
    const reading = driver.readIntoTable!(
      sandbox.config,
      { query: 'select sleep(30) as s', signal: controller.signal },
      target('stopped'),
    );
    const running = () => sandbox.threadRuns('select sleep(30) as s');
    await waitFor(running, { what: 'the query in the processlist', timeoutMs: 5_000 });
    controller.abort(reason);
    await expect(reading).rejects.toBe(reason);
    await waitFor(async () => !(await running()), { what: 'the query to be killed', timeoutMs: 5_000 });
    expect(await workspace.scratchEntries()).toEqual([]);
    expect(
      await rows("select count(*)::INTEGER n from information_schema.tables where table_name = 'stopped'"),
    ).toEqual([{ n: 0 }]);
  });

  it('reads many rows in bulk', async () => {
    await sandbox.admin.query('create table many (id int primary key, amount decimal(14,4), note text)');
    await sandbox.admin.query('create table digits (d int)');
    await sandbox.admin.query('insert into digits values (0), (1), (2), (3), (4), (5), (6), (7), (8), (9)');
    await sandbox.admin.query(`insert into many select n, n / 7, repeat('x', n % 50) from
      (select 1 + a.d + 10 * b.d + 100 * c.d + 1000 * e.d + 10000 * f.d n from digits a, digits b, digits c, digits e, digits f) seq where n <= 50000`);
    const result = await driver.readIntoTable!(sandbox.config, { table: 'many' }, target('big'));
    expect(result.rows).toBe(50_000);
    const [mysqlSum] = (await sandbox.admin.query('select sum(amount) s, sum(length(note)) l from many'))[0] as Record<
      string,
      unknown
    >[];
    expect(await rows('select sum(amount)::VARCHAR s, sum(length(note))::VARCHAR l from big')).toEqual([
      { s: mysqlSum!['s'], l: mysqlSum!['l'] },
    ]);
  });
});
