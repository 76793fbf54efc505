// current_setting, sleep_ms and the instance counters are refused however user SQL reaches them: written out, or
// hidden in a macro, a table macro, a view or a view of a view. A sql node cannot make such an object; one already in
// the file (made before this check, or placed by an operator) is caught where it is used, in the bound plan.
import duckdb, { type DuckDBConnection } from '@duckdb/node-api';
import { getDriver, prepareUserSql, userSqlProblem, type ConnectorDriver, type Row } from '../src/index.js';
import { databaseFile } from '../src/duckdb/database.js';
import { parseDuckdbConfig } from '../src/duckdb/duckdb.config.js';
import { createDataRoot, type DataRootSandbox } from './support/data-root.js';
import { batchesOf } from './support/driver-batches.js';
import { openTestWorkspace } from './support/run-workspace.js';
import { TEST_TENANT, withTenant } from './support/tenant-driver.js';

const raw = getDriver('duckdb') as Required<ConnectorDriver>;
const driver = withTenant(raw);
const cfg = { path: 'wh/bound.duckdb' };
let sandbox: DataRootSandbox;

/** Objects hiding the refused functions, each as a sql node would have made them before this check. */
const PLANTED = [
  'create macro s(n) as current_setting(n)',
  'create macro zz(n) as sleep_ms(n)',
  'create macro qid() as current_query_id()',
  'create macro tm(n) as table select current_setting(n) as x',
  "create view v1 as select current_setting('temp_directory') as td",
  'create view v2 as select td from v1',
  "create view vtm as select x from tm('memory_limit')",
  "create view vs as select s('temp_directory') as td",
  'create view vsettings as select name, value from duckdb_settings()',
];

/** Writes `statements` into the file with a plain DuckDB, past the connector and its check. */
async function plant(statements: readonly string[]): Promise<void> {
  const { file } = await databaseFile(parseDuckdbConfig(cfg), TEST_TENANT);
  const instance = await duckdb.DuckDBInstance.create(file);
  const connection = await instance.connect();
  try {
    for (const sql of statements) await connection.run(sql);
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

beforeAll(async () => {
  sandbox = await createDataRoot();
  await driver.write!(cfg, { table: 't', mode: 'overwrite' }, batchesOf([{ a: 1 }]));
  await plant(PLANTED);
});
afterAll(async () => {
  await sandbox.remove();
});

async function drain(batches: AsyncIterable<Row[]>): Promise<Row[]> {
  const rows: Row[] = [];
  for await (const batch of batches) rows.push(...batch);
  return rows;
}

const SETTINGS = "calls current_setting(), which is not allowed: it reads the server's settings";

describe('a sql node cannot hide a refused function in what it creates', () => {
  it.each([
    ['a macro', 'create or replace macro s2(n) as current_setting(n)', SETTINGS],
    ['a sleeping macro', 'create or replace macro zz2(n) as sleep_ms(n)', 'calls sleep_ms(), which is not allowed'],
    ['a table macro', 'create macro tm2(n) as table select current_setting(n) as x', SETTINGS],
    ['a view', "create view v9 as select current_setting('temp_directory') as td", SETTINGS],
    ['a view of a counter', 'create view v8 as select current_transaction_id() as x', 'current_transaction_id()'],
    ['a column default', "create table d (a varchar default current_setting('temp_directory'))", SETTINGS],
    ['a constraint', "create table k (a varchar check (a <> current_setting('temp_directory')))", SETTINGS],
    ['a table from a query', "create table c as select current_setting('temp_directory') as td", SETTINGS],
    ['an insert', "insert into t select length(current_setting('temp_directory'))", SETTINGS],
    ['an update', "update t set a = length(current_setting('memory_limit'))", SETTINGS],
    ['an enum from a query', "create type e as enum (select current_setting('temp_directory'))", SETTINGS],
    ['a changed default', "alter table t alter column a set default length(current_setting('threads'))", SETTINGS],
    ['a macro default', "create macro dflt(x := current_setting('temp_directory')) as x", SETTINGS],
    // Computed once, when the macro is made, so no plan shows what it was: any default is refused.
    ['a macro default of any kind', 'create macro dflt(x := 42) as x', 'parameter a default'],
    // DuckDB runs it as several statements: refused as such (were it one, its plan could not be serialized).
    ['a column added with a computed default', 'alter table t add column c varchar default now()', 'statements'],
    // Binding folds these (a table function's argument, a constant LIMIT) before any plan exists: read from the text.
    [
      'a table function argument, folded at bind',
      "create table leak as select count(*) as n from range(ascii(substr(current_setting('temp_directory'), 1, 1)))",
      SETTINGS,
    ],
    ['a LIMIT, folded at bind', "insert into t select 1 limit length(current_setting('temp_directory'))", SETTINGS],
    ['a quoted name', 'create table q as select "Current_Setting"(\'threads\') as x', 'calls current_setting()'],
    ['behind a comment', "create table q2 as select current_setting /* x */ ('threads') as x", SETTINGS],
  ])('%s', async (_what, sql, problem) => {
    await expect(driver.execute!(cfg, sql)).rejects.toMatchObject({
      errorClass: 'config_error',
      message: expect.stringMatching(/^the statement /),
    });
    await expect(driver.execute!(cfg, sql)).rejects.toThrow(problem);
    // Refused at save time too, where the pipeline's tables do not exist yet.
    if (!/\bt\b/.test(sql)) expect(await userSqlProblem(sql, 'statement')).toContain(problem);
  });
});

describe("DuckDB's own macros that read its catalog", () => {
  it('are refused at save time, where no table exists and nothing is bound, as the run refuses them', async () => {
    // Every built-in scalar macro whose body reads from something: a table function, a catalog view.
    const instance = await duckdb.DuckDBInstance.create(':memory:');
    const connection = await instance.connect();
    const readers = (
      await connection.runAndReadAll(
        "select distinct function_name from duckdb_functions() where function_type = 'macro' and internal and macro_definition ilike '%from%'",
      )
    ).getRows();
    connection.closeSync();
    instance.closeSync();
    expect(readers.length).toBeGreaterThan(0);
    for (const [name] of readers) {
      const sql = `select ${String(name)}(current_database()) as x from orders_not_yet`;
      expect([name, await userSqlProblem(sql, 'select')]).toEqual([
        name,
        expect.stringContaining(`calls ${String(name)}()`),
      ]);
    }
  });
});

describe('a refused name where it calls nothing', () => {
  it('passes in a string, a comment or as a column name', async () => {
    for (const sql of [
      "create table txt1 as select 'current_setting(x)' as s",
      "create table txt2 as select 1 as n -- current_setting('threads')",
      'create table txt3 as select 1 as n /* sleep_ms(10) /* nested */ */',
      'create table txt4 as select $$ pg_sleep(1) $$ as s',
      "create table txt5 as select e'it''s \\' current_setting(' as s",
      'create table txt6 (current_setting varchar)',
    ])
      await expect(driver.execute!(cfg, sql)).resolves.toMatchObject({ rows_affected: expect.any(Number) });
  });
});

describe('secret statements', () => {
  it('are refused from their words, at save time whatever ran before, and in a sql node', async () => {
    const secrets = [
      "create temporary secret s1 (type s3, key_id 'a', secret 'b')",
      "create persistent secret s2 (type s3, key_id 'a', secret 'b')",
      "CREATE OR REPLACE /* c */ SECRET s3 (type s3, key_id 'a', secret 'b')",
      'drop persistent secret if exists s2',
    ];
    for (const sql of secrets)
      expect([sql, await userSqlProblem(sql, 'statement')]).toEqual([sql, expect.stringMatching(/secret/)]);
    await expect(driver.execute!(cfg, secrets[0]!)).rejects.toThrow(/creates or drops a secret/);
    // A table or column of that name is no secret statement.
    expect(await userSqlProblem('create table secret (secret varchar)', 'statement')).toBeNull();
  });
});

describe('a refused function is caught wherever a query reaches it', () => {
  it.each([
    ['directly', "select current_setting('temp_directory') as td", SETTINGS],
    ['through a macro', "select s('temp_directory') as td, s('memory_limit') as ml", SETTINGS],
    ['through a sleeping macro', 'select zz(1) as z', 'calls sleep_ms(), which is not allowed: it only waits'],
    [
      'through a counter macro',
      'select qid() as q',
      "calls current_query_id(), which is not allowed: it reads the server's counters",
    ],
    // Refused by design where it is called (docs/security.md); in a statement, the plan sees inside it.
    ['through a table macro', "select * from tm('memory_limit')", 'calls the table function tm()', SETTINGS],
    ['through a view of a table macro', 'select * from vtm', SETTINGS],
    ['through a view', 'select * from v1', SETTINGS],
    ['through a view of a view', 'select td from v2 where td is not null', SETTINGS],
    ['through a view of a macro', 'select * from vs', SETTINGS],
    ['in a subquery of a view', 'select (select max(td) from v2) as x from t', SETTINGS],
    [
      'through a view of a system table function',
      'select * from vsettings',
      'uses the table function duckdb_settings()',
    ],
  ])('%s', async (_what, sql, problem, inStatement = problem) => {
    await expect(drain(driver.read!(cfg, { query: sql }))).rejects.toMatchObject({
      errorClass: 'config_error',
      message: expect.stringMatching(/^the query /),
    });
    await expect(drain(driver.read!(cfg, { query: sql }))).rejects.toThrow(problem);
    await expect(driver.execute!(cfg, `create table leaked as ${sql}`)).rejects.toThrow(inStatement);
  });

  it("in a typed read (the executor's source) too", async () => {
    const ws = await openTestWorkspace();
    try {
      await expect(
        raw.readIntoTable(cfg, { query: 'select * from v2', tenantId: TEST_TENANT }, ws.target('n1')),
      ).rejects.toThrow(`the query ${SETTINGS}`);
      expect(await ws.scratchEntries()).toEqual([]);
    } finally {
      await ws.close();
    }
  });

  it("in a transform's or rules decision's SELECT on a run's DuckDB too", async () => {
    const ws = await openTestWorkspace();
    const check = (c: DuckDBConnection, sql: string, kind: 'select' | 'statement') =>
      prepareUserSql(c, sql, kind).then(
        (prepared) => {
          prepared.destroySync();
          return 'accepted';
        },
        (err: Error) => err.message,
      );
    try {
      // A run's SQL is SELECTs only, so nothing there can make a macro: made here by the platform's own connection.
      await ws.connection.run('create table input as select 1 as a');
      await ws.connection.run('create macro s(n) as current_setting(n)');
      await ws.connection.run("create view v as select s('temp_directory') as td");
      expect(await check(ws.connection, "select s('memory_limit') as m from input", 'select')).toContain(SETTINGS);
      expect(await check(ws.connection, 'create or replace table n as (select * from v)', 'statement')).toContain(
        SETTINGS,
      );
      expect(await check(ws.connection, 'select a from input', 'select')).toBe('accepted');
    } finally {
      await ws.close();
    }
  });
});

describe('views and macros without a refused function still work', () => {
  it('made by a sql node, nested, and read by a source query', async () => {
    await driver.execute!(cfg, 'create or replace macro plus(x, y) as x + y');
    await driver.execute!(cfg, 'create or replace macro nums(n) as table select range as x from range(n)');
    await driver.execute!(cfg, 'create or replace view ok1 as select a, plus(a, 10) as b from t');
    await driver.execute!(cfg, 'create or replace view ok2 as select b * 2 as c from ok1');
    expect(await drain(driver.read!(cfg, { query: 'select a, b, (select c from ok2) as c from ok1' }))).toEqual([
      { a: 1, b: 11, c: 22 },
    ]);
    // A table macro is refused where it is called (docs/security.md), but one planted in a view is expanded and read.
    await plant(['create view ok3 as select x from nums(3)']);
    expect(await drain(driver.read!(cfg, { query: 'select sum(x) as s from ok3' }))).toEqual([{ s: 3 }]);
    await driver.execute!(cfg, 'create or replace table ok4 as select plus(c, 1) as d from ok2');
    expect(await driver.execute!(cfg, "alter table ok4 add column e varchar default 'x'")).toEqual({
      rows_affected: 0,
    });
    expect(await drain(driver.read!(cfg, { query: 'select * from ok4' }))).toEqual([{ d: 23, e: 'x' }]);
    for (const sql of ['drop view ok3', 'drop view ok2', 'drop view ok1', 'drop macro plus', 'drop macro table nums'])
      await driver.execute!(cfg, sql);
  });
});
