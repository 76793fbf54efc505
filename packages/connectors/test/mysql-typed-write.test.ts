import { ConnectorError, getDriver, type ConnectorDriver, type DuckDBTable, type WriteRequest } from '../src/index.js';
import { parseMysqlConfig } from '../src/mysql/mysql.config.js';
import { writeFromTable } from '../src/mysql/write-from-table.js';
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

const MATRIX_COLUMNS = `id int primary key, flag bool, tiny tinyint, utiny tinyint unsigned, small smallint, usmall smallint unsigned,
  medium mediumint, umedium mediumint unsigned, i int, ui int unsigned, big bigint, ubig bigint unsigned,
  amount decimal(12,2), dbl double, flt float, d date, dt datetime(6), ts timestamp(6) null, tm time(6), yr year,
  name varchar(100), body text, bin varbinary(16), blb blob, doc json, mood enum('sad','ok','happy'), tags set('a','b','c'), bits bit(10)`;

beforeAll(async () => {
  await sandbox.admin.query(`create table matrix (${MATRIX_COLUMNS})`);
  await sandbox.admin.query(`insert into matrix values
    (1, true, -128, 255, -32768, 65535, -8388608, 16777215, -2147483648, 4294967295, -9223372036854775808,
     18446744073709551615, 9999999999.99, 1e300, 3.25, '1969-07-20', '1900-01-01 00:00:00.000001',
     '2038-01-19 03:14:07.999999', '23:59:59.999999', 2155, 'ünï "q", x\ny', 'a,b\\\\c ''quoted'' NULL 🎉', x'00ff10', x'',
     '{"a": [1, 2.50, null], "b": "x"}', 'happy', 'a,c', b'1000000001'),
    (2, false, 127, 0, 32767, 0, 8388607, 0, 2147483647, 0, 9223372036854775807, 0, -0.01, -2.5e-300, -1.5,
     '2024-02-29', '2024-02-29 12:34:56', '1970-01-01 00:00:01', '00:00:00', 1901, '', 'NULL', x'', x'deadbeef', '[]', 'sad', '', b'0'),
    (3, null, null, null, null, null, null, null, null, null, null, null, null, null, null, null, null, null, null,
     null, null, null, null, null, null, null, null, null)`);
  await driver.readIntoTable!(sandbox.config, { table: 'matrix' }, source('m'));
});

function source(table: string): DuckDBTable {
  return workspace.target(table);
}

async function mysqlRows(sql: string): Promise<Record<string, unknown>[]> {
  const [rows] = await sandbox.admin.query(sql);
  return rows as Record<string, unknown>[];
}

async function countOf(table: string): Promise<number> {
  const [row] = await mysqlRows(`select count(*) n from ${table}`);
  return Number(row!['n']);
}

async function duckRows(sql: string): Promise<Record<string, unknown>[]> {
  return (await workspace.connection.runAndReadAll(sql)).getRowObjectsJson();
}

/** Rows of one table that the other lacks, both ways (MariaDB's EXCEPT takes NULLs as equal). */
async function exceptBothWays(a: string, b: string): Promise<number> {
  const [[left], [right]] = await Promise.all([
    mysqlRows(`select count(*) n from (select * from ${a} except select * from ${b}) x`),
    mysqlRows(`select count(*) n from (select * from ${b} except select * from ${a}) x`),
  ]);
  return Number(left!['n']) + Number(right!['n']);
}

const write = (req: Partial<WriteRequest> & { table: string }, from = 'm') =>
  driver.writeFromTable!(sandbox.config, { mode: 'append', ...req }, source(from));

describe('mysql writeFromTable', () => {
  it('writes the type matrix into an existing table of the same types: equal both ways', async () => {
    await sandbox.admin.query('create table matrix_copy like matrix');
    expect(await write({ table: 'matrix_copy' })).toEqual({ rows_written: 3 });
    expect(await countOf('matrix_copy')).toBe(3);
    expect(await exceptBothWays('matrix', 'matrix_copy')).toBe(0);
    expect(await workspace.scratchEntries()).toEqual([]);
  });

  it('creates a missing table with mapped types and the key as primary key, and reads back equal', async () => {
    expect(await write({ table: 'matrix_new', key: ['id'] })).toEqual({ rows_written: 3 });
    const types = await mysqlRows(`select column_name c, column_type t, column_key k from information_schema.columns
      where table_schema = database() and table_name = 'matrix_new' order by ordinal_position`);
    expect(Object.fromEntries(types.map((r) => [r['c'], r['t']]))).toMatchObject({
      id: 'int(11)',
      flag: 'tinyint(1)',
      utiny: 'tinyint(3) unsigned',
      ubig: 'bigint(20) unsigned',
      amount: 'decimal(12,2)',
      dbl: 'double',
      flt: 'float',
      d: 'date',
      dt: 'datetime(6)',
      ts: 'datetime(6)',
      tm: 'time(6)',
      yr: 'smallint(6)',
      name: 'longtext',
      bin: 'longblob',
      doc: 'longtext',
      bits: 'bigint(20) unsigned',
    });
    expect(types.find((r) => r['c'] === 'id')?.['k']).toBe('PRI');
    // Read back into DuckDB: the same rows, TIMESTAMPTZ now a UTC DATETIME.
    await driver.readIntoTable!(sandbox.config, { table: 'matrix_new' }, source('back'));
    const columns = (
      await duckRows(
        `select column_name from information_schema.columns where table_name = 'm' order by ordinal_position`,
      )
    ).map((r) => `"${String(r['column_name'])}"`);
    const original = columns.map((c) => (c === '"ts"' ? 'make_timestamp(epoch_us(ts)) ts' : c)).join(', ');
    const [diff] = await duckRows(`select
      (select count(*) from (select ${original} from m except select ${columns.join(', ')} from back))::INTEGER +
      (select count(*) from (select ${columns.join(', ')} from back except select ${original} from m))::INTEGER n`);
    expect(diff).toEqual({ n: 0 });
    expect(await duckRows('select count(*)::INTEGER n from back')).toEqual([{ n: 3 }]);
  });

  it('writes DuckDB-only types: UUID, LIST, STRUCT, HUGEINT, ENUM, TIMESTAMPTZ, INTERVAL', async () => {
    await workspace.connection.run("create type feeling as enum ('meh', 'great')");
    await workspace.connection.run(`create table extra as select * from (values
      ('123e4567-e89b-12d3-a456-426614174000'::UUID, [1, 2, null], {'a': 1, 'b': 'x'}, 170141183460469231731687303715884105727::HUGEINT,
       'great'::feeling, '2024-02-29 23:59:59.123456+00'::TIMESTAMPTZ, '1 day -02:00:00'::INTERVAL, 'k1', '3.4028235e38'::FLOAT),
      (null, null, null, null, null, null, null, 'k2', '1.0000001'::FLOAT)) t(u, l, s, h, e, tz, iv, k, f)`);
    await write({ table: 'extra_new', key: ['k'] }, 'extra');
    const types = await mysqlRows(`select column_name c, column_type t from information_schema.columns
      where table_schema = database() and table_name = 'extra_new' order by ordinal_position`);
    expect(types.map((r) => r['t'])).toEqual([
      'char(36)',
      'longtext',
      'longtext',
      'decimal(39,0)',
      "enum('meh','great')",
      'datetime(6)',
      'longtext',
      'varchar(255)',
      'float',
    ]);
    // FLOAT values land exactly, the largest one included.
    expect(await mysqlRows('select f * 1e0 f from extra_new order by k')).toEqual([
      { f: 3.4028234663852886e38 },
      { f: 1.0000001192092896 },
    ]);
    expect(
      await mysqlRows(
        'select u, cast(l as char) l, cast(s as char) s, cast(h as char) h, e, cast(tz as char) tz, iv, k from extra_new order by k',
      ),
    ).toEqual([
      {
        u: '123e4567-e89b-12d3-a456-426614174000',
        l: '[1,2,null]',
        s: '{"a":1,"b":"x"}',
        h: '170141183460469231731687303715884105727',
        e: 'great',
        tz: '2024-02-29 23:59:59.123456',
        iv: '1 day -02:00:00',
        k: 'k1',
      },
      { u: null, l: null, s: null, h: null, e: null, tz: null, iv: null, k: 'k2' },
    ]);
  });

  it('overwrites and upserts in one transaction; a failed write leaves the table as it was', async () => {
    await workspace.connection
      .run(`create table batch as select * from (values (1, 'one', 1.10::DECIMAL(6,2)), (2, 'two', 2.20), (2, 'two again', 2.25))
      t(id, label, price)`);
    await sandbox.admin.query(
      'create table prices (id int primary key, label varchar(20), price decimal(6,2), kept varchar(5))',
    );
    await sandbox.admin.query("insert into prices values (1, 'old', 0, 'k1'), (9, 'nine', 9, 'k9')");
    await write({ table: 'prices', mode: 'upsert', key: ['id'] }, 'batch');
    expect(await mysqlRows('select id, label, cast(price as char) price, kept from prices order by id')).toEqual([
      { id: 1, label: 'one', price: '1.10', kept: 'k1' },
      { id: 2, label: 'two again', price: '2.25', kept: null },
      { id: 9, label: 'nine', price: '9.00', kept: 'k9' },
    ]);
    // A repeated key fails an append (no silent skip) and the transaction leaves the table untouched.
    const dup = await write({ table: 'prices', mode: 'overwrite' }, 'batch').catch((e: unknown) => e);
    expect(dup).toMatchObject({ errorClass: 'config_error', message: expect.stringMatching(/Duplicate entry '2'/) });
    expect(await countOf('prices')).toBe(3);
    await workspace.connection.run("create table batch2 as select * from batch where label <> 'two again'");
    await write({ table: 'prices', mode: 'overwrite' }, 'batch2');
    expect(await mysqlRows('select id, label from prices order by id')).toEqual([
      { id: 1, label: 'one' },
      { id: 2, label: 'two' },
    ]);
    // A value the column cannot hold exactly (scale 1) fails instead of being rounded.
    await workspace.connection.run('create table rounding as select 3 id, 1.25::DECIMAL(6,2) price');
    await sandbox.admin.query('create table narrow (id int primary key, price decimal(6,1))');
    const rounded = await write({ table: 'narrow' }, 'rounding').catch((e: unknown) => e);
    expect(rounded).toMatchObject({
      errorClass: 'config_error',
      message: expect.stringMatching(/Data truncated for column 'price'/),
    });
    expect(await countOf('narrow')).toBe(0);
  });

  it('refuses what the request does not allow, naming it', async () => {
    await sandbox.admin.query('create table slim (id int primary key)');
    const missing = await write({ table: 'slim' }, 'batch').catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(ConnectorError);
    expect((missing as Error).message).toMatch(
      /has no column "label" \(VARCHAR\), "price" \(DECIMAL\(6,2\)\); set schema_evolution/,
    );
    await write({ table: 'slim', mode: 'upsert', key: ['id'], schema_evolution: 'add_columns' }, 'batch2');
    expect(await mysqlRows('select id, label, cast(price as char) price from slim order by id')).toEqual([
      { id: 1, label: 'one', price: '1.10' },
      { id: 2, label: 'two', price: '2.20' },
    ]);
    await expect(write({ table: 'absent', create: false }, 'batch')).rejects.toMatchObject({
      errorClass: 'config_error',
      message: expect.stringMatching(/absent does not exist/),
    });
    await sandbox.admin.query('create table nokey (id int, label text, price decimal(6,2))');
    await expect(write({ table: 'nokey', mode: 'upsert', key: ['id'] }, 'batch')).rejects.toThrow(
      /upsert key \(id\) is not a primary or unique key/,
    );
    await expect(write({ table: 'nokey', mode: 'upsert', key: ['nope'] }, 'batch')).rejects.toThrow(
      /key column\(s\) nope not among/,
    );
    // A created table whose load fails is dropped again.
    await workspace.connection.run("create table bad as select 1 id, 'nan'::DOUBLE x");
    await expect(write({ table: 'made_then_failed' }, 'bad')).rejects.toThrow(/Incorrect double value/);
    expect(
      await countOf("information_schema.tables where table_schema = database() and table_name = 'made_then_failed'"),
    ).toBe(0);
  });

  it('stops with the abort reason while the server holds the load back, and writes nothing', async () => {
    await sandbox.admin.query('create table held like matrix');
    await sandbox.admin.query('lock tables held write');
    const controller = new AbortController();
    const reason = new Error('canceled by the test');
    const writing = driver.writeFromTable!(
      sandbox.config,
      { table: 'held', mode: 'append', signal: controller.signal },
      source('m'),
    );
    const waiting = async () =>
      countOf("information_schema.processlist where info like 'load data local infile%held%'");
    try {
      await waitFor(async () => (await waiting()) > 0, { what: 'the load in the processlist', timeoutMs: 5_000 });
      controller.abort(reason);
      await expect(writing).rejects.toBe(reason);
    } finally {
      await sandbox.admin.query('unlock tables');
    }
    expect(await countOf('held')).toBe(0);
    expect(await workspace.scratchEntries()).toEqual([]);
  });

  it('writes with multi-row INSERTs where LOAD DATA LOCAL is not used, just as exactly', async () => {
    const cfg = parseMysqlConfig(sandbox.config);
    await sandbox.admin.query('create table matrix_ins like matrix');
    expect(
      await writeFromTable(cfg, { table: 'matrix_ins', mode: 'append' }, source('m'), { transfer: 'insert' }),
    ).toEqual({ rows_written: 3 });
    expect(await exceptBothWays('matrix', 'matrix_ins')).toBe(0);
    await writeFromTable(cfg, { table: 'matrix_ins', mode: 'upsert', key: ['id'] }, source('m'), {
      transfer: 'insert',
    });
    expect(await exceptBothWays('matrix', 'matrix_ins')).toBe(0);
    await writeFromTable(cfg, { table: 'matrix_ins2', mode: 'append', key: ['id'] }, source('m'), {
      transfer: 'insert',
    });
    expect(await exceptBothWays('matrix_new', 'matrix_ins2')).toBe(0);
  });
});
