import pg from 'pg';
import { jest } from '@jest/globals';
import { ConnectorPools, getDriver, type ConnectorDriver, type DuckDBTable } from '../src/index.js';
import { waitFor } from '@conduit/testing';
import { usePgSandbox } from './support/pg-sandbox.js';
import { allowPrivateNetworks } from './support/network-policy.js';
import { openTestWorkspace } from './support/run-workspace.js';
import { suiteFixture } from './support/suite-fixture.js';

// The test server listens on this machine, which the default network policy refuses.
allowPrivateNetworks();

const driver = getDriver('postgres') as Required<ConnectorDriver>;
const sandbox = usePgSandbox();
// A DuckDB locked down like a run's workspace: it may touch files only in its scratch folder.
const workspace = suiteFixture(openTestWorkspace, (ws) => ws.close());

/**
 * One column of the matrix: its PostgreSQL type, the DuckDB type it must become, and how each side prints a value
 * for comparison (each side with its own functions; `compare` for spellings that differ but mean the same value).
 */
interface MatrixColumn {
  name: string;
  pgType: string;
  duckType: string;
  pgText?: (ref: string) => string;
  duckText?: (ref: string) => string;
  compare?: (pgValue: string, duckValue: string) => boolean;
}

const sameFloat = (a: string, b: string) =>
  Object.is(Number(a), Number(b.replace(/^(-?)inf$/, '$1Infinity').replace('nan', 'NaN')));
const sameFloat32 = (a: string, b: string) =>
  Object.is(Math.fround(Number(a)), Math.fround(Number(b.replace(/^(-?)inf$/, '$1Infinity').replace('nan', 'NaN'))));
const sameJson = (a: string, b: string) => JSON.stringify(JSON.parse(a)) === JSON.stringify(JSON.parse(b));
const pgElements = (ref: string) =>
  `case when ${ref} is null then null else coalesce((select json_agg(e::text order by i) from unnest(${ref}) with ordinality u(e, i))::text, '[]') end`;
const duckElements = (ref: string) => `to_json(list_transform(${ref}, e -> e::VARCHAR))`;

const MATRIX: MatrixColumn[] = [
  { name: 'i2', pgType: 'smallint', duckType: 'SMALLINT' },
  { name: 'i4', pgType: 'integer', duckType: 'INTEGER' },
  { name: 'i8', pgType: 'bigint', duckType: 'BIGINT' },
  { name: 'n', pgType: 'numeric(12,2)', duckType: 'DECIMAL(12,2)' },
  { name: 'n38', pgType: 'numeric(38,10)', duckType: 'DECIMAL(38,10)' },
  // Unbounded: the largest scale of its values (9) decides, so PostgreSQL's text may carry fewer trailing zeros.
  { name: 'nu', pgType: 'numeric', duckType: 'DECIMAL(38,9)', pgText: (r) => `${r}::numeric(38,9)::text` },
  { name: 'dm', pgType: 'money2', duckType: 'DECIMAL(12,2)' },
  { name: 'r', pgType: 'real', duckType: 'FLOAT', compare: sameFloat32 },
  { name: 'd', pgType: 'double precision', duckType: 'DOUBLE', compare: sameFloat },
  { name: 'b', pgType: 'boolean', duckType: 'BOOLEAN' },
  { name: 't', pgType: 'text', duckType: 'VARCHAR' },
  { name: 'vc', pgType: 'varchar(10)', duckType: 'VARCHAR' },
  // char(n) keeps the padding PostgreSQL prints (its ::text cast would trim it).
  { name: 'ch', pgType: 'char(3)', duckType: 'VARCHAR', pgText: (r) => r },
  {
    name: 'dt',
    pgType: 'date',
    duckType: 'DATE',
    pgText: (r) => `case when isfinite(${r}) then (${r} - date '1970-01-01')::text else ${r}::text end`,
    duckText: (r) => `case when isfinite(${r}) then (${r} - DATE '1970-01-01')::VARCHAR else ${r}::VARCHAR end`,
  },
  {
    name: 'ts',
    pgType: 'timestamp',
    duckType: 'TIMESTAMP',
    pgText: (r) =>
      `case when isfinite(${r}) then (extract(epoch from ${r}) * 1000000)::bigint::text else ${r}::text end`,
    duckText: (r) => `case when isfinite(${r}) then epoch_us(${r})::VARCHAR else ${r}::VARCHAR end`,
  },
  {
    name: 'tstz',
    pgType: 'timestamptz',
    duckType: 'TIMESTAMP WITH TIME ZONE',
    pgText: (r) =>
      `case when isfinite(${r}) then (extract(epoch from ${r}) * 1000000)::bigint::text else ${r}::text end`,
    duckText: (r) => `case when isfinite(${r}) then epoch_us(${r})::VARCHAR else ${r}::VARCHAR end`,
  },
  { name: 'tm', pgType: 'time', duckType: 'TIME' },
  { name: 'tmtz', pgType: 'timetz', duckType: 'TIME WITH TIME ZONE' },
  {
    name: 'iv',
    pgType: 'interval',
    duckType: 'INTERVAL',
    // The time part by another road than the reader's (hours, minutes, microseconds): what is left after the days.
    pgText: (r) =>
      `extract(year from ${r}) * 12 + extract(month from ${r}) || ' ' || extract(day from ${r}) || ' ' || (extract(epoch from ${r} - date_trunc('day', ${r})) * 1000000)::bigint`,
    duckText: (r) =>
      `(datepart('year', ${r}) * 12 + datepart('month', ${r}))::VARCHAR || ' ' || datepart('day', ${r})::VARCHAR || ' ' || (datepart('hour', ${r})::BIGINT * 3600000000 + datepart('minute', ${r})::BIGINT * 60000000 + datepart('microseconds', ${r}))::VARCHAR`,
  },
  { name: 'u', pgType: 'uuid', duckType: 'UUID' },
  { name: 'j', pgType: 'json', duckType: 'JSON' },
  { name: 'jb', pgType: 'jsonb', duckType: 'JSON' },
  {
    name: 'ta',
    pgType: 'text[]',
    duckType: 'VARCHAR[]',
    pgText: pgElements,
    duckText: duckElements,
    compare: sameJson,
  },
  {
    name: 'ia',
    pgType: 'integer[]',
    duckType: 'INTEGER[]',
    pgText: pgElements,
    duckText: duckElements,
    compare: sameJson,
  },
  {
    name: 'na',
    pgType: 'numeric(6,2)[]',
    duckType: 'DECIMAL(6,2)[]',
    pgText: pgElements,
    duckText: duckElements,
    compare: sameJson,
  },
  { name: 'da', pgType: 'date[]', duckType: 'DATE[]', pgText: pgElements, duckText: duckElements, compare: sameJson },
  {
    name: 'bin',
    pgType: 'bytea',
    duckType: 'BLOB',
    pgText: (r) => `encode(${r}, 'hex')`,
    duckText: (r) => `lower(hex(${r}))`,
  },
  { name: 'e', pgType: 'mood', duckType: 'VARCHAR' },
];

const ROWS = `
  (1, 32767, 2147483647, 9223372036854775807, 9999999999.99, 9999999999999999999999999999.9999999999, 12345678901234567890.123456789, 12.34,
   3.4028235e38, 1e300, true, E'h\\u00e9llo \\U0001F30D "quoted", comma\\nnew line', 'abcdefghij', 'ab', '2024-02-29', '2024-02-29 23:59:59.999999',
   '2024-02-29 23:59:59.999999+05:30', '24:00:00', '10:00:00.5+05:30', '1 year 2 mons 3 days 04:05:06.789', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11',
   '{"a": [1, 2.50, "x"],  "b": null}', '{"a": [1, 2.50, "x"], "b": null}', '{"a","b,c","q\\"x",NULL,"","line\\\\nx"}', '{1,NULL,3}', '{1.50,NULL,-9999.99}',
   '{2024-02-29,1900-01-01}', '\\x00ff10', 'happy'),
  (2, -32768, -2147483648, -9223372036854775808, -9999999999.99, -0.0000000001, -0.000000001, -0.01,
   '-0', '-0', false, '', '', '', '1969-12-31', '1969-12-31 23:59:59.000001', '1901-12-13 20:45:52+00', '00:00:00', '23:59:59-12',
   '-1 year -2 mons +3 days -04:05:06.000001', '00000000-0000-0000-0000-000000000000', '[]', '{}', '{}', '{}', '{}', '{}', '\\x', 'sad'),
  (3, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
   NULL, NULL, NULL, NULL, NULL),
  (4, 0, 0, 0, 0, 0, 0, 0, 'Infinity', 'NaN', true, 'NULL', ' ', 'x', 'infinity', '-infinity', 'infinity', '12:34:56.789012', '00:00:00+00',
   '-178000000 years', NULL, '"text"', '1e300', '{NULL}', '{NULL}', '{NULL}', '{NULL}', '\\x5c2e', 'ok'),
  (5, 1, 1, 1, 0.01, 1, 1, 1, '-Infinity', '-Infinity', false, '\\.', 'q''', 'a,b', '0044-03-15 BC', '0044-03-15 10:00:00 BC',
   '0001-01-01 00:00:00+00 BC', '00:00:00.000001', '12:00:00+14', '2562047788 hours 54.775807 seconds', NULL, 'null', 'null', '{" a "}', '{-1}', '{0.00}',
   '{infinity,1600-02-29}', '\\x0a0d22', NULL),
  (6, 7, 7, 7, 7, 7, 7, 7, 1.1, 1e-300, true, 'last', 'x', 'x', '-infinity', 'infinity', '-infinity', '23:59:59.999999', '01:02:03-05:30',
   '-2562047788 hours -54.775808 seconds', NULL, '1.0', '-0.0', '{}', '{2147483647,-2147483648}', '{}', '{}', '\\x', 'happy')`;

beforeAll(async () => {
  await sandbox.admin.query(`create type mood as enum ('sad', 'ok', 'happy')`);
  await sandbox.admin.query(`create domain money2 as numeric(12,2)`);
  await sandbox.admin.query(
    `create table matrix (id int primary key, ${MATRIX.map((c) => `${c.name} ${c.pgType}`).join(', ')})`,
  );
  await sandbox.admin.query(`insert into matrix values ${ROWS}`);
});
const target = (table: string): DuckDBTable => workspace.target(table);
const duckRows = async (sql: string) => (await workspace.connection.runAndReadAll(sql)).getRows();
const asText: pg.CustomTypesConfig = { getTypeParser: () => (value: string) => value };

async function duckTypes(table: string): Promise<Record<string, string>> {
  const rows = await duckRows(
    `select column_name, data_type from information_schema.columns where table_name = '${table}' order by ordinal_position`,
  );
  return Object.fromEntries(rows.map(([name, type]) => [String(name), String(type)]));
}

describe('postgres typed read (readIntoTable)', () => {
  it('declares every common type from the catalog and loads every value exactly, NULL apart from the empty string', async () => {
    const result = await driver.readIntoTable(sandbox.config, { table: 'matrix' }, target('matrix'));
    expect(result.rows).toBe(6);
    expect(await duckTypes('matrix')).toEqual({
      id: 'INTEGER',
      ...Object.fromEntries(MATRIX.map((c) => [c.name, c.duckType])),
    });
    expect(result.columns.find((c) => c.name === 'n')).toEqual({
      name: 'n',
      type: 'DECIMAL(12,2)',
      source_type: 'numeric(12,2)',
    });
    expect(result.columns.find((c) => c.name === 'e')).toEqual({ name: 'e', type: 'VARCHAR', source_type: 'mood' });

    const pgSide = await sandbox.admin.query<Record<string, string | null>>({
      text: `select ${MATRIX.map((c) => `${(c.pgText ?? ((r: string) => `${r}::text`))(c.name)} as ${c.name}`).join(', ')} from matrix order by id`,
      types: asText,
    });
    const duckSide = await duckRows(
      `select ${MATRIX.map((c) => `(${(c.duckText ?? ((r: string) => `${r}::VARCHAR`))(c.name)})::VARCHAR`).join(', ')} from matrix order by id`,
    );
    const mismatches: string[] = [];
    pgSide.rows.forEach((row, r) => {
      MATRIX.forEach((c, i) => {
        const want = row[c.name] ?? null;
        const got = duckSide[r]![i] === null ? null : String(duckSide[r]![i]);
        const equal =
          want === null || got === null ? want === got : (c.compare ?? ((a: string, b: string) => a === b))(want, got);
        if (!equal)
          mismatches.push(
            `row ${r + 1} ${c.name} (${c.pgType}): postgres ${JSON.stringify(want)}, duckdb ${JSON.stringify(got)}`,
          );
      });
    });
    expect(mismatches).toEqual([]);
    // Row 3 is NULL in every column (COLUMNS(...) in WHERE is the conjunction over them).
    expect(await duckRows(`select count(*) from matrix where id = 3 and COLUMNS(* EXCLUDE (id)) is null`)).toEqual([
      [1n],
    ]);
    // The empty string and NULL stay apart; the file in the scratch folder is gone.
    expect(await duckRows(`select id, t is null, t = '' from matrix where id in (2, 3) order by id`)).toEqual([
      [2, false, true],
      [3, true, null],
    ]);
    expect(await workspace.scratchEntries()).toEqual([]);
  });

  it('keeps an unbounded numeric exact: DECIMAL(38,s) when every value fits, else its text (NaN, over 38 digits)', async () => {
    await driver.readIntoTable(
      sandbox.config,
      { query: `select x::numeric as amount from (values ('1.5'), ('-20.125'), (null)) v(x)` },
      target('fits'),
    );
    expect(await duckTypes('fits')).toEqual({ amount: 'DECIMAL(38,3)' });
    expect(await duckRows(`select sum(amount)::VARCHAR from fits`)).toEqual([['-18.625']]);

    const wide = '123456789012345678901234567890.123456789012';
    const { columns } = await driver.readIntoTable(
      sandbox.config,
      {
        query: `select $1::numeric as wide, x::numeric as special, 1e-40::numeric(50,45) as tiny from (values ('NaN'), ('2')) v(x)`,
        params: [wide],
      },
      target('exact_text'),
    );
    expect(columns.map((c) => [c.type, c.source_type])).toEqual([
      ['VARCHAR', 'numeric'],
      ['VARCHAR', 'numeric'],
      ['VARCHAR', 'numeric(50,45)'],
    ]);
    const declared = await driver.readIntoTable(
      sandbox.config,
      {
        query: `select 12345::numeric(5,-2) as hundreds, 0.00123::numeric(3,5) as small, 12.34::money as cash, '10.0.0.1/8'::inet as net`,
      },
      target('declared'),
    );
    expect(declared.columns.map((c) => c.type)).toEqual(['DECIMAL(7,0)', 'DECIMAL(5,5)', 'DECIMAL(19,2)', 'VARCHAR']);
    expect(await duckRows(`select hundreds::VARCHAR, small = 0.00123, cash::VARCHAR, net from declared`)).toEqual([
      ['12300', true, '12.34', '10.0.0.1/8'],
    ]);
    // money at both ends of its range, exact, whatever the server's lc_monetary prints.
    const money = await driver.readIntoTable(
      sandbox.config,
      {
        query: `select x::money as cash from (values ('-92233720368547758.08'), ('92233720368547758.07'), (null)) v(x)`,
      },
      target('money_range'),
    );
    expect(money.columns.map((c) => [c.type, c.source_type])).toEqual([['DECIMAL(19,2)', 'money']]);
    expect(await duckRows(`select cash::VARCHAR from money_range order by cash`)).toEqual([
      ['-92233720368547758.08'],
      ['92233720368547758.07'],
      [null],
    ]);
    expect(await duckRows(`select wide, special, tiny from exact_text order by special`)).toEqual([
      [wide, '2', '0.000000000000000000000000000000000000000100000'],
      [wide, 'NaN', '0.000000000000000000000000000000000000000100000'],
    ]);
  });

  it('reads a query with params through the cursor with the same types and values as COPY', async () => {
    const { rows } = await driver.readIntoTable(
      sandbox.config,
      { query: 'select * from matrix where id <= $1', params: [6] },
      target('by_cursor'),
    );
    expect(rows).toBe(6);
    expect(await duckTypes('by_cursor')).toEqual(await duckTypes('matrix'));
    const diff = await duckRows(
      `select count(*) from ((select * exclude (j) from matrix except all select * exclude (j) from by_cursor) union all (select * exclude (j) from by_cursor except all select * exclude (j) from matrix))`,
    );
    expect(diff).toEqual([[0n]]);
    expect(
      await duckRows(
        `select count(*) from matrix m join by_cursor c on m.id = c.id and m.j::VARCHAR is not distinct from c.j::VARCHAR`,
      ),
    ).toEqual([[6n]]);
  });

  it('refuses a source query that adds a second statement and runs none of it', async () => {
    const query = `select 1 as n) q; commit; create table injected_typed (a int); select 1 as n from (select 1`;
    await expect(driver.readIntoTable(sandbox.config, { query }, target('injected'))).rejects.toThrow(
      /multiple commands/,
    );
    const exists = await sandbox.admin.query<{ t: string | null }>(`select to_regclass($1) as t`, [
      `${sandbox.schema}.injected_typed`,
    ]);
    expect(exists.rows[0]?.t).toBeNull();
  });

  it("asks a pool's server once for a built-in type's name, and at every read for an enum's", async () => {
    const pools = new ConnectorPools({ max: 1, idleMs: 60_000 });
    const queries = jest.spyOn(pg.Client.prototype, 'query');
    const asked = () => queries.mock.calls.filter(([q]) => typeof q === 'string' && q.includes('format_type')).length;
    const pooled = (tenantId: string, query: string, table: string) =>
      driver.readIntoTable(sandbox.config, { query, tenantId, pool: { pools, connectorId: 'c1' } }, target(table));
    try {
      const builtins = 'select id, n, nu, vc, ch, ta, tstz, iv from matrix where id = 1';
      const alone = await driver.readIntoTable(sandbox.config, { query: builtins }, target('names_alone'));
      const first = await pooled('t1', builtins, 'names_first');
      const before = asked();
      const second = await pooled('t1', builtins, 'names_second');
      expect(asked()).toBe(before);
      // The names kept are the server's own: the same as a read on a connection of its own prints.
      expect(second.columns).toEqual(first.columns);
      expect(first.columns).toEqual(alone.columns);
      expect(first.columns.map((c) => c.source_type)).toEqual([
        'integer',
        'numeric(12,2)',
        'numeric',
        'character varying(10)',
        'character(3)',
        'text[]',
        'timestamp with time zone',
        'interval',
      ]);
      // Another tenant's pool keeps names of its own.
      await pooled('t2', builtins, 'names_other_tenant');
      expect(asked()).toBe(before + 1);
      // An enum can be dropped and made again under another name: asked at every read. (A domain's column is
      // described as its base type, a built-in one here.)
      const user = 'select e, dm from matrix where id = 1';
      for (const table of ['names_user_1', 'names_user_2'])
        expect((await pooled('t1', user, table)).columns.map((c) => c.source_type)).toEqual(['mood', 'numeric(12,2)']);
      expect(asked()).toBe(before + 3);
    } finally {
      queries.mockRestore();
      await pools.closeAll();
    }
  });

  it("never keeps a name a tenant's query printed otherwise by changing its transaction's search_path", async () => {
    // An immutable function runs while the describe is planned: its set_config holds for the read's transaction, where
    // a type of the tenant's named `text` then makes format_type print the built-in one qualified.
    await sandbox.admin.query(`create schema shadow; create type shadow.text as enum ('x')`);
    await sandbox.admin.query(`create function shadow_path() returns text immutable language plpgsql as $$
      begin return set_config('search_path', 'shadow, pg_catalog, ' || current_setting('search_path'), true); end $$`);
    const pools = new ConnectorPools({ max: 1, idleMs: 60_000 });
    const pooled = (query: string, table: string) =>
      driver.readIntoTable(
        sandbox.config,
        { query, tenantId: 't1', pool: { pools, connectorId: 'c1' } },
        target(table),
      );
    try {
      const shadowed = await pooled(`select 'x'::pg_catalog.text as t where shadow_path() is not null`, 'shadowed');
      expect(shadowed.columns.map((c) => c.source_type)).toEqual(['pg_catalog.text']);
      const plain = await pooled(`select 'x'::text as t`, 'plain');
      expect(plain.columns.map((c) => c.source_type)).toEqual(['text']);
    } finally {
      await pools.closeAll();
      await sandbox.admin.query(`drop function shadow_path(); drop schema shadow cascade`);
    }
  });

  it('creates the typed table for an empty result', async () => {
    const result = await driver.readIntoTable(
      sandbox.config,
      { query: 'select id, n, ta, nu from matrix where false' },
      target('empty'),
    );
    expect(result).toEqual({
      rows: 0,
      columns: [
        { name: 'id', type: 'INTEGER', source_type: 'integer' },
        { name: 'n', type: 'DECIMAL(12,2)', source_type: 'numeric(12,2)' },
        { name: 'ta', type: 'VARCHAR[]', source_type: 'text[]' },
        { name: 'nu', type: 'DECIMAL(38,0)', source_type: 'numeric' },
      ],
    });
    expect(await duckRows('select count(*) from empty')).toEqual([[0n]]);
  });

  it('fails loudly, naming the column, where a value has no exact DuckDB form', async () => {
    await expect(
      driver.readIntoTable(sandbox.config, { query: `select 'NaN'::numeric(12,2) as price` }, target('nan_price')),
    ).rejects.toThrow(/column "price" \(numeric\(12,2\)\)/);
    await expect(
      driver.readIntoTable(sandbox.config, { query: `select 'NaN'::numeric(30,10) as wide_price` }, target('nan_wide')),
    ).rejects.toThrow(
      'column "wide_price" (numeric(30,10)) holds a value that DECIMAL(30,10) cannot hold exactly: NaN',
    );
    await expect(
      driver.readIntoTable(sandbox.config, { query: `select '{{1,2},{3,4}}'::int[] as grid` }, target('grid')),
    ).rejects.toThrow('column "grid" holds a multi-dimensional array');
    await expect(
      driver.readIntoTable(
        sandbox.config,
        { query: `select '294276-12-31 00:00:00'::timestamp as far` },
        target('far'),
      ),
    ).rejects.toThrow(/column "far" \(timestamp without time zone\)/);
    await expect(
      driver.readIntoTable(sandbox.config, { query: 'select 1 as a, 2 as a' }, target('twice')),
    ).rejects.toThrow('the query returns the column "a" twice');
    await expect(driver.readIntoTable(sandbox.config, { table: 'no_such_table' }, target('missing'))).rejects.toThrow(
      'relation',
    );
    // A failed load leaves no table behind, and no file.
    expect(
      await duckRows(
        `select count(*) from information_schema.tables where table_name in ('nan_price', 'nan_wide', 'grid', 'far', 'twice', 'missing')`,
      ),
    ).toEqual([[0n]]);
    expect(await workspace.scratchEntries()).toEqual([]);
  });
  it("refuses a row longer than the run's buffers allow with a message naming the limit, not the row's data", async () => {
    const MiB = 1024 * 1024;
    const buffers = { csvMaxLineBytes: MiB, csvBufferBytes: 2 * MiB, streamChunkBytes: 64 * 1024 };
    const small = { ...target('long_ok'), buffers };
    expect(
      await driver.readIntoTable(sandbox.config, { query: `select 1 as id, repeat('y', 900000) as note` }, small),
    ).toMatchObject({ rows: 1 });
    // Rows past the line size and the buffer (DuckDB words this differently by where the rows fall across buffers).
    for (const size of [5 * MiB, 12 * MiB]) {
      const read = driver.readIntoTable(
        sandbox.config,
        { query: `select g as id, repeat('z', ${size}) as note from generate_series(1, 3) g` },
        { ...target('long'), buffers },
      );
      await expect(read).rejects.toThrow(
        "a row is longer than the 1 MiB a row may have as CSV within the run's memory limit (the executor's RUN_MEMORY_LIMIT)",
      );
      await expect(read).rejects.not.toThrow(/zzz/);
    }
  });

  it('stops with the abort reason, cancels the COPY on the server, and leaves no file or table', async () => {
    const controller = new AbortController();
    const marker = 'typed_read_abort_marker';
    const read = driver.readIntoTable(
      sandbox.config,
      { query: `select g, repeat('${marker}', 10) from generate_series(1, 50000000) g`, signal: controller.signal },
      target('aborted'),
    );
    const running = () => sandbox.sessionShows(marker, { active: false });
    await waitFor(async () => (await running()) || (await workspace.scratchEntries()).length > 0, {
      what: 'the COPY to start',
      timeoutMs: 10_000,
    });
    controller.abort(new Error('stopped by the test'));
    await expect(read).rejects.toThrow('stopped by the test');
    await waitFor(async () => !(await running()), { what: 'the server to stop the COPY', timeoutMs: 5_000 });
    expect(await workspace.scratchEntries()).toEqual([]);
    expect(await duckRows(`select count(*) from information_schema.tables where table_name = 'aborted'`)).toEqual([
      [0n],
    ]);
  });
});
