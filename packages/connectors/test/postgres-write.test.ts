import { getDriver, type ConnectorDriver, type Row } from '../src/index.js';
import { usePgSandbox } from './support/pg-sandbox.js';
import { allowPrivateNetworks } from './support/network-policy.js';
import { batchesOf } from './support/driver-batches.js';

// The test servers listen on this machine, which the default network policy refuses.
allowPrivateNetworks();

const driver = getDriver('postgres') as Required<ConnectorDriver>;
const sandbox = usePgSandbox();

async function tableRows(table: string, orderBy = 'id'): Promise<Row[]> {
  return (await sandbox.admin.query(`select * from ${table} order by ${orderBy}`)).rows as Row[];
}

async function createItems(table: string): Promise<void> {
  await sandbox.admin.query(`create table ${table} (
    id int primary key, name text, "Note ""odd"", name" text, amount numeric, score float8, flag boolean, doc jsonb,
    big bigint, at timestamptz, raw bytea)`);
}

// Values that break naive CSV or text encodings. Strings are written verbatim, so into jsonb they must be JSON text.
const awkward: Row[] = [
  {
    id: 1,
    name: null,
    'Note "odd", name': '',
    amount: 12.5,
    score: -0.25,
    flag: true,
    doc: { a: 'x"y', n: [1, null] },
  },
  {
    id: 2,
    name: 'say "hi", then\nleave',
    'Note "odd", name': 'tab\there\r\nand crlf',
    amount: null,
    score: Number.NaN,
    flag: false,
    doc: [],
  },
  { id: 3, name: '\\.', 'Note "odd", name': '\\N', amount: 0, score: Number.POSITIVE_INFINITY, flag: null, doc: null },
  {
    id: 4,
    name: 'héllo wörld ✓ 日本語 🚀',
    'Note "odd", name': 'NULL',
    amount: 123456789.0001,
    score: 1e-7,
    flag: true,
    doc: '{"already": "json text"}',
  },
];

describe('postgres write', () => {
  it('appends with COPY, keeping nulls, quotes, newlines, unicode, numbers, booleans and json', async () => {
    await createItems('items_append');
    const extra: Row = {
      id: 5,
      big: 9007199254740993n,
      at: new Date('2024-02-03T04:05:06.789Z'),
      raw: Buffer.from([0, 1, 254]),
    };
    const result = await driver.write(
      sandbox.config,
      { table: 'items_append', mode: 'append' },
      batchesOf([extra, ...awkward.slice(0, 2)], [], awkward.slice(2)),
    );
    expect(result).toEqual({ rows_written: 5 });

    const rows = await tableRows('items_append');
    expect(rows.map((r) => r['name'])).toEqual([null, 'say "hi", then\nleave', '\\.', 'héllo wörld ✓ 日本語 🚀', null]);
    expect(rows.map((r) => r['Note "odd", name'])).toEqual(['', 'tab\there\r\nand crlf', '\\N', 'NULL', null]);
    expect(rows.map((r) => r['amount'])).toEqual(['12.5', null, '0', '123456789.0001', null]);
    expect(rows.map((r) => r['score'])).toEqual([-0.25, Number.NaN, Number.POSITIVE_INFINITY, 1e-7, null]);
    expect(rows.map((r) => r['flag'])).toEqual([true, false, null, true, null]);
    expect(rows.map((r) => r['doc'])).toEqual([{ a: 'x"y', n: [1, null] }, [], null, { already: 'json text' }, null]);
    expect(rows[4]).toMatchObject({
      big: '9007199254740993',
      at: new Date('2024-02-03T04:05:06.789Z'),
      raw: Buffer.from([0, 1, 254]),
    });
  });

  it('writes a single nullable column (an empty CSV line is a NULL)', async () => {
    await sandbox.admin.query('create table single (v text)');
    await driver.write(
      sandbox.config,
      { table: `${sandbox.schema}.single`, mode: 'append' },
      batchesOf([{ v: null }, { v: '' }, { v: 'x' }]),
    );
    const { rows } = await sandbox.admin.query('select v from single order by v nulls first');
    expect(rows.map((r: Row) => r['v'])).toEqual([null, '', 'x']);
  });

  it('writes many rows across batches and reads them back', async () => {
    await sandbox.admin.query('create table many (id int, label text)');
    async function* generate(): AsyncGenerator<Row[]> {
      for (let b = 0; b < 10; b++)
        yield Array.from({ length: 2500 }, (_, i) => ({ id: b * 2500 + i, label: `row ${b * 2500 + i}` }));
    }
    await expect(driver.write(sandbox.config, { table: 'many', mode: 'append' }, generate())).resolves.toEqual({
      rows_written: 25000,
    });
    const { rows } = await sandbox.admin.query(
      'select count(*)::int as n, count(distinct id)::int as d, max(id) as m from many',
    );
    expect(rows[0]).toEqual({ n: 25000, d: 25000, m: 24999 });
  });

  it('overwrites in one transaction: replaced on success, untouched on failure', async () => {
    await sandbox.admin.query('create table ow (id int primary key, name text not null)');
    await sandbox.admin.query(`insert into ow values (1, 'old'), (2, 'old')`);

    await expect(
      driver.write(sandbox.config, { table: 'ow', mode: 'overwrite' }, batchesOf([{ id: 3, name: 'new' }])),
    ).resolves.toEqual({ rows_written: 1 });
    expect(await tableRows('ow')).toEqual([{ id: 3, name: 'new' }]);

    // The second batch breaks NOT NULL: the truncate must roll back with the copy.
    const failing = driver.write(
      sandbox.config,
      { table: 'ow', mode: 'overwrite' },
      batchesOf([{ id: 4, name: 'x' }], [{ id: 5, name: null }]),
    );
    await expect(failing).rejects.toMatchObject({ name: 'ConnectorError', errorClass: 'config_error', code: '23502' });
    expect(await tableRows('ow')).toEqual([{ id: 3, name: 'new' }]);

    await expect(driver.write(sandbox.config, { table: 'ow', mode: 'overwrite' }, batchesOf())).resolves.toEqual({
      rows_written: 0,
    });
    expect(await tableRows('ow')).toEqual([]);
  });

  it('upserts by key: updates, inserts, last row wins for a repeated key, other columns kept', async () => {
    await sandbox.admin.query(
      "create table up (id int primary key, name text, qty int, untouched text default 'keep')",
    );
    await sandbox.admin.query(
      `insert into up (id, name, qty, untouched) values (1, 'one', 1, 'mine'), (2, 'two', 2, 'mine')`,
    );
    const result = await driver.write(
      sandbox.config,
      { table: 'up', mode: 'upsert', key: ['id'] },
      batchesOf(
        [
          { id: 2, name: 'TWO', qty: 20 },
          { id: 3, name: 'three', qty: 3 },
        ],
        [{ id: 3, name: 'THREE', qty: null }],
      ),
    );
    expect(result).toEqual({ rows_written: 2 });
    expect(await tableRows('up')).toEqual([
      { id: 1, name: 'one', qty: 1, untouched: 'mine' },
      { id: 2, name: 'TWO', qty: 20, untouched: 'mine' },
      { id: 3, name: 'THREE', qty: null, untouched: 'keep' },
    ]);
  });

  it('upserts on a composite key, and with only key columns', async () => {
    await sandbox.admin.query('create table upc (a text, b int, v text, primary key (a, b))');
    await sandbox.admin.query(`insert into upc values ('x', 1, 'old')`);
    await driver.write(
      sandbox.config,
      { table: 'upc', mode: 'upsert', key: ['a', 'b'] },
      batchesOf([
        { a: 'x', b: 1, v: 'new' },
        { a: 'x', b: 2, v: 'added' },
      ]),
    );
    expect(await tableRows('upc', 'a, b')).toEqual([
      { a: 'x', b: 1, v: 'new' },
      { a: 'x', b: 2, v: 'added' },
    ]);

    await driver.write(
      sandbox.config,
      { table: 'upc', mode: 'upsert', key: ['a', 'b'] },
      batchesOf([
        { a: 'x', b: 1 },
        { a: 'y', b: 1 },
      ]),
    );
    expect(await tableRows('upc', 'a, b')).toEqual([
      { a: 'x', b: 1, v: 'new' },
      { a: 'x', b: 2, v: 'added' },
      { a: 'y', b: 1, v: null },
    ]);
  });

  it('refuses an upsert without a usable key, and unknown columns in later batches', async () => {
    await expect(
      driver.write(sandbox.config, { table: 'up', mode: 'upsert' }, batchesOf([{ id: 1 }])),
    ).rejects.toMatchObject({ errorClass: 'config_error', message: 'upsert needs a key' });
    await expect(
      driver.write(sandbox.config, { table: 'up', mode: 'upsert', key: ['nope'] }, batchesOf([{ id: 1 }])),
    ).rejects.toMatchObject({ errorClass: 'config_error' });
    await expect(
      driver.write(sandbox.config, { table: 'up', mode: 'append' }, batchesOf([{ id: 10 }], [{ id: 11, surprise: 1 }])),
    ).rejects.toMatchObject({
      errorClass: 'config_error',
      message: 'row has column "surprise" that the first batch did not have',
    });
    expect((await tableRows('up')).map((r) => r['id'])).toEqual([1, 2, 3]);
  });

  it('quotes table and column names safely', async () => {
    await sandbox.admin.query('create table "Weird ""T"" name" ("Col; drop table up; --" text)');
    await driver.write(
      sandbox.config,
      { table: 'Weird "T" name', mode: 'append' },
      batchesOf([{ 'Col; drop table up; --': 'ok' }]),
    );
    expect((await sandbox.admin.query('select * from "Weird ""T"" name"')).rows).toEqual([
      { 'Col; drop table up; --': 'ok' },
    ]);
    expect((await tableRows('up')).length).toBe(3);
  });

  it('stops on abort without waiting for the producer, and commits nothing', async () => {
    await sandbox.admin.query('create table aborted (id int)');
    const controller = new AbortController();
    async function* producer(): AsyncGenerator<Row[]> {
      yield Array.from({ length: 1000 }, (_, id) => ({ id }));
      controller.abort();
      // A slow upstream: the write must not wait for it.
      await new Promise((resolve) => setTimeout(resolve, 60_000).unref());
      yield [{ id: -1 }];
    }
    const started = Date.now();
    await expect(
      driver.write(sandbox.config, { table: 'aborted', mode: 'append', signal: controller.signal }, producer()),
    ).rejects.toMatchObject({ name: 'AbortError' });
    expect(Date.now() - started).toBeLessThan(10_000);
    expect((await sandbox.admin.query('select count(*)::int as n from aborted')).rows[0]).toEqual({ n: 0 });
  });
});
