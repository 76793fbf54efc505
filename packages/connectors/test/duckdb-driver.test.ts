import { mkdir, readFile, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { getDriver, type ConnectorDriver, type Row } from '../src/index.js';
import { createDataRoot, type DataRootSandbox } from './support/data-root.js';
import { TEST_TENANT, withTenant } from './support/tenant-driver.js';
import { batchesOf } from './support/driver-batches.js';

const raw = getDriver('duckdb') as ConnectorDriver;
const driver = withTenant(raw);
let sandbox: DataRootSandbox;
const cfg = { path: 'wh/warehouse.duckdb' };

beforeAll(async () => {
  sandbox = await createDataRoot();
});
afterAll(async () => {
  await sandbox.remove();
});

async function collect(batches: AsyncIterable<Row[]>): Promise<Row[][]> {
  const out: Row[][] = [];
  for await (const batch of batches) out.push(batch);
  return out;
}
const query = async (sql: string) => (await collect(driver.read!(cfg, { query: sql }))).flat();

describe('duckdb driver', () => {
  it('is a warehouse type serving source, sink and sql', () => {
    expect(driver.info).toMatchObject({ type: 'duckdb', category: 'warehouse', secret_fields: [] });
    expect([...driver.info.roles].sort()).toEqual(['sink', 'source', 'sql']);
  });

  it('creates a missing table from the rows, appends, and reads back in batches', async () => {
    const rows = Array.from({ length: 12_000 }, (_, i) => ({
      id: i,
      name: `n${i}`,
      score: i / 2,
      at: '2024-01-02T03:04:05.006Z',
      ok: i % 2 === 0,
    }));
    expect(
      await driver.write!(cfg, { table: 'people', mode: 'append' }, batchesOf(rows.slice(0, 5000), rows.slice(5000))),
    ).toEqual({ rows_written: 12_000 });
    await driver.write!(
      cfg,
      { table: 'people', mode: 'append' },
      batchesOf([{ id: 12_000, name: null, score: 1, at: null, ok: null }]),
    );
    const read = await collect(driver.read!(cfg, { table: 'people', batchSize: 5000 }));
    expect(read.map((b) => b.length)).toEqual([5000, 5000, 2001]);
    expect(read[0]![1]).toEqual({ id: 1, name: 'n1', score: 0.5, at: '2024-01-02T03:04:05.006Z', ok: false });
    expect(await query('select count(*) as n, max(id) as top from people')).toEqual([{ n: 12_001, top: 12_000 }]);
    expect(await readdir(join(sandbox.home, 'wh'))).toEqual(['warehouse.duckdb']); // the staging file is gone
  });

  it('overwrites and upserts (last row of a key wins)', async () => {
    await driver.write!(
      cfg,
      { table: 'kv', mode: 'overwrite' },
      batchesOf([
        { k: 'a', v: 1 },
        { k: 'b', v: 2 },
      ]),
    );
    await driver.write!(cfg, { table: 'kv', mode: 'overwrite' }, batchesOf([{ k: 'c', v: 3 }]));
    expect(await query('select * from kv order by k')).toEqual([{ k: 'c', v: 3 }]);
    await driver.write!(
      cfg,
      { table: 'kv', mode: 'upsert', key: ['k'] },
      batchesOf(
        [
          { k: 'c', v: 30 },
          { k: 'd', v: 4 },
        ],
        [{ k: 'c', v: 31 }],
      ),
    );
    expect(await query('select * from kv order by k')).toEqual([
      { k: 'c', v: 31 },
      { k: 'd', v: 4 },
    ]);
  });

  it('executes statements and answers the rows changed', async () => {
    expect(await driver.execute!(cfg, 'create schema if not exists mart')).toEqual({ rows_affected: 0 });
    expect(await driver.execute!(cfg, 'create table mart.t (id bigint)')).toEqual({ rows_affected: 0 });
    expect(await driver.execute!(cfg, 'insert into mart.t select range from range(5)')).toEqual({ rows_affected: 5 });
    expect(await driver.execute!(cfg, 'delete from mart.t where id < 2')).toEqual({ rows_affected: 2 });
    expect((await collect(driver.read!({ ...cfg, schema: 'mart' }, { table: 't' }))).flat()).toHaveLength(3);
  });

  it('says clearly what is wrong: a missing table, a missing file, a path outside the root', async () => {
    await expect(collect(driver.read!(cfg, { table: 'nope' }))).rejects.toMatchObject({
      errorClass: 'config_error',
      message: expect.stringMatching(/nope does not exist/i),
    });
    await expect(collect(driver.read!({ path: 'none.duckdb' }, { table: 't' }))).rejects.toMatchObject({
      errorClass: 'config_error',
      message: 'database file "none.duckdb" does not exist',
    });
    await expect(driver.execute!({ path: '../x.duckdb' }, 'select 1')).rejects.toMatchObject({
      errorClass: 'config_error',
      message: 'path leaves the data root',
    });
    await expect(driver.write!(cfg, { table: 'kv', mode: 'upsert' }, batchesOf([{ k: 'x' }]))).rejects.toThrow(
      /upsert needs a key/,
    );
  });
});

// DuckDB opens an existing .csv or .parquet given as its database in memory, with a view over the file: a write
// "succeeded" and was lost when it closed.
it('refuses a data file as its database, for reads, writes and statements', async () => {
  const file = join(sandbox.root, TEST_TENANT, 'wh', 'rows.csv');
  await mkdir(join(sandbox.root, TEST_TENANT, 'wh'), { recursive: true });
  await writeFile(file, 'a\n1\n');
  const data = { path: 'wh/rows.csv' };
  const refused = {
    errorClass: 'config_error',
    message: expect.stringContaining('is a data file, not a DuckDB database file'),
  };
  await expect(collect(driver.read!(data, { table: 'rows' }))).rejects.toMatchObject(refused);
  await expect(driver.write!(data, { table: 'rows', mode: 'append' }, batchesOf([{ a: 2 }]))).rejects.toMatchObject(
    refused,
  );
  await expect(driver.execute!(data, 'create table t (a int)')).rejects.toMatchObject(refused);
  expect(await readFile(file, 'utf8')).toBe('a\n1\n');
});

describe('duckdb Test Connection', () => {
  it('opens an existing file, accepts a new one in an existing folder, and refuses a missing folder or schema', async () => {
    const ok = await driver.test(cfg);
    expect(ok).toMatchObject({ ok: true, error_class: null, details: { path: 'wh/warehouse.duckdb', exists: true } });
    expect(ok.checks.map((c) => c.name)).toEqual(['resolve', 'file', 'open']);
    await mkdir(join(sandbox.home, 'fresh'));
    expect(await driver.test({ path: 'fresh/new.duckdb' })).toMatchObject({ ok: true, details: { exists: false } });
    expect(await driver.test({ path: 'nowhere/new.duckdb' })).toMatchObject({
      ok: false,
      error_class: 'config_error',
      message: 'folder of "nowhere/new.duckdb" does not exist',
    });
    expect(await driver.test({ ...cfg, schema: 'missing' })).toMatchObject({
      ok: false,
      error_class: 'config_error',
      message: 'schema "missing" does not exist',
    });
  });
});

describe('duckdb tenants', () => {
  it("keeps each tenant's file in its own folder: the same relative path is another database", async () => {
    const other = withTenant(raw, 'tnt_other');
    await other.write!(cfg, { table: 'mine', mode: 'overwrite' }, batchesOf([{ secret: 'other tenant' }]));
    await expect(collect(driver.read!(cfg, { table: 'mine' }))).rejects.toThrow(/mine does not exist/);
    expect((await collect(other.read!(cfg, { table: 'mine' }))).flat()).toEqual([{ secret: 'other tenant' }]);
    expect(await readdir(join(sandbox.root, 'tnt_other', 'wh'))).toEqual(['warehouse.duckdb']);
  });

  it('refuses a call that carries no tenant, or one that is not a folder name, instead of using the shared root', async () => {
    const noTenant = { errorClass: 'config_error', message: expect.stringMatching(/need the calling tenant/) };
    await expect(collect(raw.read!(cfg, { table: 'people' }))).rejects.toMatchObject(noTenant);
    await expect(raw.write!(cfg, { table: 'x', mode: 'append' }, batchesOf([{ a: 1 }]))).rejects.toMatchObject(
      noTenant,
    );
    await expect(raw.execute!(cfg, 'select 1')).rejects.toMatchObject(noTenant);
    expect(await raw.test(cfg)).toMatchObject({
      ok: false,
      error_class: 'config_error',
      message: expect.stringMatching(/need the calling tenant/),
    });
    await expect(raw.execute!(cfg, 'select 1', { tenantId: '..' })).rejects.toThrow(/not a valid folder name/);
    expect(await readdir(sandbox.root)).toEqual(expect.not.arrayContaining(['wh', 'x']));
  });
});
