import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import duckdb, { type DuckDBConnection, type DuckDBInstance } from '@duckdb/node-api';
import {
  getDriver,
  lockDown,
  preparableConfig,
  type ConnectorDriver,
  type DuckDBTable,
  type ReadRequest,
  type WriteRequest,
} from '../src/index.js';
import { createDataRoot, type DataRootSandbox } from './support/data-root.js';
import { TEST_TENANT } from './support/tenant-driver.js';

const driver = getDriver('duckdb') as Required<ConnectorDriver>;
const source = { path: 'typed/source.duckdb' };
const sink = { path: 'typed/sink.duckdb' };
let sandbox: DataRootSandbox;
let scratchDir: string;
let workspaceFile: string;
let instance: DuckDBInstance;
let ws: DuckDBConnection;

/** Every common DuckDB type, with the types Parquet cannot hold as they are (HUGEINT, INTERVAL, TIMETZ, BIT, ENUM...). */
const COLUMNS: [string, string][] = [
  ['id', 'INTEGER'],
  ['i1', 'TINYINT'],
  ['i2', 'SMALLINT'],
  ['i4', 'INTEGER'],
  ['i8', 'BIGINT'],
  ['i16', 'HUGEINT'],
  ['u1', 'UTINYINT'],
  ['u8', 'UBIGINT'],
  ['u16', 'UHUGEINT'],
  ['d18', 'DECIMAL(18,2)'],
  ['d38', 'DECIMAL(38,10)'],
  ['f', 'FLOAT'],
  ['d', 'DOUBLE'],
  ['b', 'BOOLEAN'],
  ['t', 'VARCHAR'],
  ['dt', 'DATE'],
  ['ts', 'TIMESTAMP'],
  ['tsns', 'TIMESTAMP_NS'],
  ['tstz', 'TIMESTAMP WITH TIME ZONE'],
  ['tm', 'TIME'],
  ['tmtz', 'TIME WITH TIME ZONE'],
  ['iv', 'INTERVAL'],
  ['u', 'UUID'],
  ['j', 'JSON'],
  ['ia', 'INTEGER[]'],
  ['ta', 'VARCHAR[]'],
  ['ha', 'HUGEINT[]'],
  ['iva', 'INTERVAL[]'],
  ['fa', 'INTEGER[3]'],
  ['st', 'STRUCT(n INTEGER, "s q" VARCHAR, iv INTERVAL)'],
  ['mp', 'MAP(VARCHAR, INTEGER)'],
  ['bl', 'BLOB'],
  ['bt', 'BIT'],
  ['e', "ENUM('sad', 'ok', 'happy')"],
];

const ROWS = `
  (1, 127, 32767, 2147483647, 9223372036854775807, 170141183460469231731687303715884105727, 255, 18446744073709551615,
   340282366920938463463374607431768211455, 9999999999999999.99, 9999999999999999999999999999.9999999999, 3.4028235e38, 1e300, true,
   'h' || chr(233) || 'llo ' || chr(127757) || ' "quoted", ''single'' comma' || chr(10) || 'new line', DATE '2024-02-29',
   TIMESTAMP '2024-02-29 23:59:59.999999', TIMESTAMP_NS '2024-02-29 23:59:59.123456789', TIMESTAMPTZ '2024-02-29 23:59:59.999999+05:30',
   TIME '23:59:59.999999', TIMETZ '10:00:00.5+05:30', INTERVAL '1 year 2 months 3 days 04:05:06.789001', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11',
   '{"a": [1, 2.50, "x"], "b": null}', [1, NULL, 3], ['a', 'b,c', 'q"x', NULL, '', 'line' || chr(10) || 'x'], [170141183460469231731687303715884105727, NULL],
   [INTERVAL '-1 day 0.000001 seconds', NULL], [1, 2, 3], {'n': 1, 's q': 'it''s, "x"', 'iv': INTERVAL '-3 hours'}, MAP {'k': 1, 'l': NULL}, '\\x00\\xFF\\x10'::BLOB, '1010'::BIT, 'happy'),
  (2, -128, -32768, -2147483648, -9223372036854775808, -170141183460469231731687303715884105727 - 1, 0, 0, 0, -9999999999999999.99,
   -0.0000000001, '-0'::FLOAT, '-0'::DOUBLE, false, '', DATE '1969-12-31', TIMESTAMP '1969-12-31 23:59:59.000001', TIMESTAMP_NS '1900-01-01 00:00:00',
   TIMESTAMPTZ '1901-12-13 20:45:52+00', TIME '00:00:00', TIMETZ '23:59:59-12', INTERVAL '-1 year -2 months 3 days -4 hours -5 minutes -6.000001 seconds',
   '00000000-0000-0000-0000-000000000000', '[]', [], [], [], [], [0, 0, 0], {'n': NULL, 's q': '', 'iv': NULL}, MAP {}, ''::BLOB, '0'::BIT, 'sad'),
  (3, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
   NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
  (4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 'NaN'::FLOAT, 'NaN'::DOUBLE, true, 'NULL', DATE '1600-02-29', TIMESTAMP 'infinity', TIMESTAMP_NS '2262-04-11 23:47:16',
   TIMESTAMPTZ '-infinity', TIME '12:34:56.789012', TIMETZ '00:00:00+00', INTERVAL '-178000000 years', NULL, 'null', [NULL], [NULL], [NULL], [NULL],
   [NULL, 1, NULL], NULL, NULL, '\\x5C\\x2E'::BLOB, NULL, NULL),
  (5, 1, 1, 1, 1, 1, 1, 1, 1, 0.01, 1, 'Infinity'::FLOAT, '-Infinity'::DOUBLE, false, ' ', DATE '0044-03-15 (BC)', TIMESTAMP '-infinity', NULL,
   TIMESTAMPTZ 'infinity', TIME '24:00:00', TIMETZ '12:00:00+14', INTERVAL '2562047788 hours 54.775807 seconds', NULL, '1e300', NULL, [' a '], NULL,
   NULL, NULL, NULL, NULL, NULL, NULL, NULL),
  (6, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 1.1, 1e-300, true, 'last', DATE 'infinity', TIMESTAMP '0001-01-01 00:00:00', NULL, NULL, NULL, NULL,
   INTERVAL '-2562047788 hours -54.775808 seconds', NULL, '"text"', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 'ok')`;

const tableDdl = (name: string) => `create table ${name} (${COLUMNS.map(([c, t]) => `"${c}" ${t}`).join(', ')})`;
const workspaceTable = (table: string): DuckDBTable => ({ connection: ws, table, scratchDir });
const read = (config: Record<string, unknown>, req: ReadRequest, table: string) =>
  driver.readIntoTable(config, { ...req, tenantId: TEST_TENANT }, workspaceTable(table));
const write = (req: WriteRequest, table: string) =>
  driver.writeFromTable(sink, { ...req, tenantId: TEST_TENANT }, workspaceTable(table));

/** Runs `work` on a plain (not sandboxed) DuckDB that attaches the files read-only: the test's own view of them. */
async function inspect<T>(files: Record<string, string>, work: (c: DuckDBConnection) => Promise<T>): Promise<T> {
  const checker = await duckdb.DuckDBInstance.create(':memory:');
  const c = await checker.connect();
  try {
    for (const [alias, file] of Object.entries(files)) await c.run(`attach '${file}' as ${alias} (read_only)`);
    return await work(c);
  } finally {
    c.closeSync();
    checker.closeSync();
  }
}
const rowsOf = async (c: DuckDBConnection, sql: string) => (await c.runAndReadAll(sql)).getRowsJson();
const typesOf = (c: DuckDBConnection, table: string) =>
  rowsOf(c, `select column_name, column_type from (describe ${table})`);

/** `a except b` and `b except a`, on the values and on their text (which tells -0 from 0); all four must be empty. */
async function differences(c: DuckDBConnection, a: string, b: string): Promise<unknown[]> {
  const text = (t: string) => `select columns(*)::VARCHAR from ${t}`;
  return [
    ...(await rowsOf(c, `select * from ${a} except all select * from ${b}`)),
    ...(await rowsOf(c, `select * from ${b} except all select * from ${a}`)),
    ...(await rowsOf(c, `${text(a)} except all ${text(b)}`)),
    ...(await rowsOf(c, `${text(b)} except all ${text(a)}`)),
  ];
}

/** Sandboxed like a run's workspace: DuckDB may touch files in the scratch folder only (and its own file). */
async function openWorkspace(): Promise<void> {
  instance = await duckdb.DuckDBInstance.create(workspaceFile, preparableConfig({ threads: '1' }));
  ws = await instance.connect();
  await ws.run(`set TimeZone = 'UTC'`);
  await lockDown(ws, [], [scratchDir]);
}

beforeAll(async () => {
  sandbox = await createDataRoot();
  await driver.execute(source, `${tableDdl('matrix')}`, { tenantId: TEST_TENANT });
  await driver.execute(source, `insert into matrix values ${ROWS}`, { tenantId: TEST_TENANT });
  await driver.execute(sink, tableDdl('existing'), { tenantId: TEST_TENANT });
  scratchDir = await mkdtemp(join(tmpdir(), 'duckdb-typed-'));
  workspaceFile = join(await mkdtemp(join(tmpdir(), 'duckdb-typed-ws-')), 'workspace.duckdb');
  await openWorkspace();
});

afterAll(async () => {
  ws?.closeSync();
  instance?.closeSync();
  if (scratchDir) await rm(scratchDir, { recursive: true, force: true });
  if (workspaceFile) await rm(join(workspaceFile, '..'), { recursive: true, force: true });
  await sandbox.remove();
});

describe('duckdb typed read and write (through Parquet in the scratch folder)', () => {
  it('reads every type exactly, writes it back into an existing and a created table, equal both ways', async () => {
    const result = await read(source, { table: 'matrix' }, 'src');
    expect(result.rows).toBe(6);
    expect(result.columns.map((c) => [c.name, c.type])).toEqual(
      COLUMNS.map(([name, type]): unknown[] => [
        name,
        expect.stringMatching(new RegExp(`^${type.replace(/[()[\]]/g, '\\$&').replace(/ /g, ' ?')}$`, 'i')),
      ]),
    );
    expect(await write({ table: 'existing', mode: 'append' }, 'src')).toEqual({ rows_written: 6 });
    expect(await write({ table: 'created', mode: 'append' }, 'src')).toEqual({ rows_written: 6 });
    expect(await readdir(scratchDir)).toEqual([]);
    // The workspace file is closed while the test's own DuckDB attaches it (one process may hold a file).
    ws.closeSync();
    instance.closeSync();
    await inspect(
      { s: join(sandbox.home, source.path), k: join(sandbox.home, sink.path), w: workspaceFile },
      async (c) => {
        const types = await typesOf(c, 's.matrix');
        expect(await typesOf(c, 'w.src')).toEqual(types);
        expect(await typesOf(c, 'k.existing')).toEqual(types);
        expect(await typesOf(c, 'k.created')).toEqual(types);
        expect(await differences(c, 's.matrix', 'w.src')).toEqual([]);
        expect(await differences(c, 's.matrix', 'k.existing')).toEqual([]);
        expect(await differences(c, 's.matrix', 'k.created')).toEqual([]);
      },
    );
    await openWorkspace();
  });
});

describe("duckdb typed write: the row sink's modes and the target table's rules", () => {
  const sinkRows = (sql: string) =>
    inspect({ k: join(sandbox.home, sink.path) }, async (c) => {
      await c.run('use k');
      return rowsOf(c, sql);
    });

  it('overwrites, and upserts with the last row of a key winning, keeping DECIMAL exact', async () => {
    await ws.run(`create table kv1 as select * from (values ('a', 1.10::DECIMAL(18,2)), ('b', 2.20)) t(k, v)`);
    await ws.run(
      `create table kv2 as select * from (values ('b', 20.01::DECIMAL(18,2)), ('c', 3.00), ('b', 21.99)) t(k, v)`,
    );
    expect(await write({ table: 'kv', mode: 'overwrite' }, 'kv1')).toEqual({ rows_written: 2 });
    expect(await write({ table: 'kv', mode: 'overwrite' }, 'kv1')).toEqual({ rows_written: 2 });
    expect(await write({ table: 'kv', mode: 'upsert', key: ['k'] }, 'kv2')).toEqual({ rows_written: 3 });
    // A table an upsert creates has the key as its primary key; upserting into it again replaces rows.
    expect(await write({ table: 'kv_pk', mode: 'upsert', key: ['k'] }, 'kv2')).toEqual({ rows_written: 3 });
    expect(await write({ table: 'kv_pk', mode: 'upsert', key: ['k'] }, 'kv1')).toEqual({ rows_written: 2 });
    expect(await sinkRows(`select k, v::VARCHAR from kv_pk order by k`)).toEqual([
      ['a', '1.10'],
      ['b', '2.20'],
      ['c', '3.00'],
    ]);
    expect(
      await sinkRows(
        `select constraint_type, constraint_column_names from duckdb_constraints() where table_name = 'kv_pk' and constraint_type = 'PRIMARY KEY'`,
      ),
    ).toEqual([['PRIMARY KEY', ['k']]]);
    expect(await sinkRows(`select k, v::VARCHAR, typeof(v) from kv order by k`)).toEqual([
      ['a', '1.10', 'DECIMAL(18,2)'],
      ['b', '21.99', 'DECIMAL(18,2)'],
      ['c', '3.00', 'DECIMAL(18,2)'],
    ]);
  });

  it('refuses a missing table with create: false, and a column the target lacks unless add_columns', async () => {
    await ws.run(`create table wide as select 1 as id, 'x' as note, 2.5::DECIMAL(4,1) as extra`);
    await expect(write({ table: 'absent', mode: 'append', create: false }, 'wide')).rejects.toMatchObject({
      errorClass: 'config_error',
      message: 'table absent does not exist (the sink has create: false)',
    });
    await driver.execute(sink, 'create table narrow (id INTEGER, note VARCHAR)', { tenantId: TEST_TENANT });
    await expect(write({ table: 'narrow', mode: 'append' }, 'wide')).rejects.toMatchObject({
      errorClass: 'config_error',
      message: 'table narrow has no column "extra" (DECIMAL(4,1)); set schema_evolution: "add_columns" to add it',
    });
    expect(await sinkRows('select count(*)::INTEGER from narrow')).toEqual([[0]]);
    expect(await write({ table: 'narrow', mode: 'append', schema_evolution: 'add_columns' }, 'wide')).toEqual({
      rows_written: 1,
    });
    expect(await sinkRows('select id, note, extra::VARCHAR, typeof(extra) from narrow')).toEqual([
      [1, 'x', '2.5', 'DECIMAL(4,1)'],
    ]);
    expect(await sinkRows("select count(*)::INTEGER from duckdb_tables() where table_name = 'absent'")).toEqual([[0]]);
    expect(await readdir(scratchDir)).toEqual([]);
  });
});

describe('duckdb typed read: a source query', () => {
  it('is checked as the row read checks it, and a failed read leaves no table and no file', async () => {
    await expect(read(source, { query: `select * from read_csv('/etc/passwd')` }, 'bad')).rejects.toMatchObject({
      errorClass: 'config_error',
      message: expect.stringMatching(/^the query calls the table function read_csv\(\), which is not allowed/),
    });
    await expect(read(source, { query: 'select 1; select 2' }, 'bad')).rejects.toMatchObject({
      message: expect.stringMatching(/^the query holds 2 statements/),
    });
    expect(
      (await ws.runAndReadAll("select count(*)::INTEGER from duckdb_tables() where table_name = 'bad'")).getRows(),
    ).toEqual([[0]]);
    expect(await readdir(scratchDir)).toEqual([]);
  });

  it("keeps the query's own types and names (repeated names numbered as the row read does)", async () => {
    const result = await read(
      source,
      { query: 'select id, -d18 as negated, id as id, iv -- a trailing comment\nfrom matrix where id < 3' },
      'q',
    );
    expect(result).toEqual({
      rows: 2,
      columns: [
        { name: 'id', type: 'INTEGER', source_type: 'INTEGER' },
        { name: 'negated', type: 'DECIMAL(18,2)', source_type: 'DECIMAL(18,2)' },
        { name: 'id:1', type: 'INTEGER', source_type: 'INTEGER' },
        { name: 'iv', type: 'INTERVAL', source_type: 'INTERVAL' },
      ],
    });
    const rows = (await ws.runAndReadAll('select negated::VARCHAR, iv::VARCHAR from q order by id')).getRows();
    expect(rows).toEqual([
      ['-9999999999999999.99', '1 year 2 months 3 days 04:05:06.789001'],
      ['9999999999999999.99', '-1 year -2 months 3 days -04:05:06.000001'],
    ]);
  });
});
