// The SQL-escape corpus through the duckdb connector: as a source query and as a sql node's statement, every one is
// refused with a config_error, the server's file is not read and nothing is written.
import { randomUUID } from 'node:crypto';
import { mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getDriver, userSqlProblem, type ConnectorDriver, type Row } from '../src/index.js';
import { createDataRoot, type DataRootSandbox } from './support/data-root.js';
import { sqlEscapes } from '@conduit/testing';
import { withTenant } from './support/tenant-driver.js';

const MARKER = 'conduit-secret-marker-7f3a';
const driver = withTenant(getDriver('duckdb') as ConnectorDriver);
const cfg = { path: 'wh/escapes.duckdb' };
let sandbox: DataRootSandbox;
// Known before the tests are listed (it.each names them), made in beforeAll.
const outside = join(tmpdir(), `conduit-escapes-${randomUUID()}`);

beforeAll(async () => {
  sandbox = await createDataRoot();
  await mkdir(outside);
  await writeFile(join(outside, 'secret.env'), `SECRETS_KEY=${MARKER}\n`);
  await writeFile(join(outside, 'data.csv'), `a\n${MARKER}\n`);
  await driver.write!(
    cfg,
    { table: 't', mode: 'overwrite' },
    (async function* () {
      yield [{ a: 1 }];
    })(),
  );
});
afterAll(async () => {
  await sandbox.remove();
  await rm(outside, { recursive: true, force: true });
});

async function drain(batches: AsyncIterable<Row[]>): Promise<Row[]> {
  const rows: Row[] = [];
  for await (const batch of batches) rows.push(...batch);
  return rows;
}

const escapes = () => sqlEscapes({ secret: join(outside, 'secret.env'), dir: outside, out: join(outside, 'out') });

describe('duckdb connector refuses every statement of the SQL-escape corpus', () => {
  it('has at least 40 statements', () => {
    expect(escapes().length).toBeGreaterThanOrEqual(40);
  });

  it.each(escapes().map((e) => [e.name, e.sql]))(
    '%s: refused as a source query and as a sql node statement',
    async (_name, sql) => {
      const asQuery = await drain(driver.read!(cfg, { query: sql })).then(
        (rows) => ({ refused: false, text: JSON.stringify(rows) }),
        (err: { errorClass?: string; message: string }) => ({
          refused: err.errorClass === 'config_error',
          text: err.message,
        }),
      );
      expect(asQuery).toMatchObject({ refused: true, text: expect.stringMatching(/^the query /) });
      const asStatement = await driver.execute!(cfg, sql).then(
        (result) => ({ refused: false, text: JSON.stringify(result) }),
        (err: { errorClass?: string; message: string }) => ({
          refused: err.errorClass === 'config_error',
          text: err.message,
        }),
      );
      expect(asStatement).toMatchObject({ refused: true, text: expect.stringMatching(/^the statement /) });
      expect(`${asQuery.text} ${asStatement.text}`).not.toContain(MARKER);
      expect((await readdir(outside)).sort()).toEqual(['data.csv', 'secret.env']);
    },
  );

  it('the catalog-side check refuses them too, without any table', async () => {
    for (const { name, sql, needsTable } of escapes()) {
      expect([name, await userSqlProblem(sql, 'select')]).toEqual([name, expect.any(String)]);
      // Without its table such a statement cannot be prepared, so its kind shows only at run time (refused above).
      if (!needsTable) expect([name, await userSqlProblem(sql, 'statement')]).toEqual([name, expect.any(String)]);
    }
    expect((await readdir(outside)).sort()).toEqual(['data.csv', 'secret.env']);
  });
});

// A source's `table` is the tenant's text too: read as ours, `pg_catalog.pg_settings` exported DuckDB's settings
// (the file's path and the executor's folders among them), and `duckdb_databases` the file's path.
describe("a duckdb source's table", () => {
  it.each(['pg_catalog.pg_settings', 'duckdb_databases', 'main.duckdb_databases', 'information_schema.tables'])(
    "%s: refused as DuckDB's own, naming the table",
    async (table) => {
      await expect(drain(driver.read!(cfg, { table }))).rejects.toMatchObject({
        errorClass: 'config_error',
        message: expect.stringMatching(/^the table (reads DuckDB's own view|reads DuckDB|calls)/),
      });
    },
  );

  it("still reads the file's own tables, one in another schema named like a DuckDB view too", async () => {
    await driver.execute!(cfg, 'create schema if not exists analytics');
    await driver.execute!(cfg, 'create or replace table analytics.pg_tables as select 7 as n');
    expect(await drain(driver.read!(cfg, { table: 'analytics.pg_tables' }))).toEqual([{ n: 7 }]);
    expect(await drain(driver.read!(cfg, { table: 't' }))).toEqual([{ a: 1 }]);
  });
});

describe('user SQL may not read the instance counters or hold a slot waiting', () => {
  // A run's DuckDB instance serves an executor slot's runs one after another: its counters would tell a tenant how
  // much earlier runs did, and a sleep only holds the slot.
  it.each([
    [
      'select current_connection_id() as c',
      "current_connection_id(), which is not allowed: it reads the server's counters",
    ],
    ['select 1 as a where current_transaction_id() > 0', 'current_transaction_id(), which is not allowed'],
    ['select current_query_id() as q', 'current_query_id(), which is not allowed'],
    ['select txid_current() as x', 'txid_current(), which is not allowed'],
    ['select a from (select sleep_ms(10) as s, 1 as a)', 'sleep_ms(), which is not allowed: it only waits'],
    ['select pg_sleep(1) as s', 'pg_sleep(), which is not allowed: it only waits'],
  ])('%s', async (sql, problem) => {
    expect(await userSqlProblem(sql, 'select')).toContain(problem);
  });
});

describe('duckdb connector still runs ordinary SQL', () => {
  it('reads its own tables with queries of every shape, and runs DDL and DML', async () => {
    expect(
      await drain(
        driver.read!(cfg, {
          query: 'with x as (select a from t) select a, (select count(*) from range(3)) as n from x;',
        }),
      ),
    ).toEqual([{ a: 1, n: 3 }]);
    expect(await drain(driver.read!(cfg, { query: 'from t select a * 2 as b -- doubled' }))).toEqual([{ b: 2 }]);
    await driver.execute!(cfg, 'create table if not exists u as select * from t');
    expect(await driver.execute!(cfg, 'insert into u select a + 1 from t;')).toEqual({ rows_affected: 1 });
    expect(await driver.execute!(cfg, 'update u set a = a * 10 where a > 1')).toEqual({ rows_affected: 1 });
    expect(await drain(driver.read!(cfg, { query: 'select a from u order by a' }))).toEqual([{ a: 1 }, { a: 20 }]);
    expect(await driver.execute!(cfg, 'drop table u')).toEqual({ rows_affected: 0 });
  });

  it('does not let a sql node make a view that hides a table function (planted ones: duckdb-bound-sql.test.ts)', async () => {
    await expect(
      driver.execute!(cfg, 'create or replace view leak as select name, value from duckdb_settings()'),
    ).rejects.toThrow('the statement calls the table function duckdb_settings(), which is not allowed');
    await expect(drain(driver.read!(cfg, { query: 'select * from leak' }))).rejects.toThrow(/leak does not exist/);
  });

  it('names what is wrong: a second statement, a statement kind, a function', async () => {
    await expect(drain(driver.read!(cfg, { query: 'select 1; select 2' }))).rejects.toThrow(
      'the query holds 2 statements: only one statement is allowed',
    );
    await expect(drain(driver.read!(cfg, { query: 'delete from t' }))).rejects.toThrow(
      'the query must be one SELECT statement',
    );
    await expect(driver.execute!(cfg, "copy t to 'x.csv'")).rejects.toThrow(/not allowed|may not read or write files/);
    await expect(driver.execute!(cfg, 'set threads = 1')).rejects.toThrow(
      'the statement is a set statement, which is not allowed',
    );
    await expect(drain(driver.read!(cfg, { query: "select * from read_text('x')" }))).rejects.toThrow(
      'the query calls the table function read_text(), which is not allowed',
    );
  });
});
