import { link, mkdir, mkdtemp, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeParquet } from '@conduit/testing';
import { ConnectorError, getDriver, type ConnectorDriver, type ReadRequest } from '../src/index.js';
import { bringLocalFile } from '../src/formats/scratch-folder.js';
import { ScratchAllowance } from '../src/formats/scratch-limit.js';
import { DAILY_COLUMNS, DAILY_FILES, DAILY_OVERRIDE, expectDailyRows } from './support/daily-csvs.js';
import { createDataRoot, type DataRootSandbox } from './support/data-root.js';
import { PARQUET_MATRIX, PARQUET_MATRIX_TYPES } from './support/parquet-fixture.js';
import { openTestWorkspace, type TestWorkspace } from './support/run-workspace.js';
import { TEST_TENANT } from './support/tenant-driver.js';

const driver = getDriver('file') as Required<ConnectorDriver>;
let sandbox: DataRootSandbox;
let ws: TestWorkspace;

const read = (req: ReadRequest, table: string, config: Record<string, unknown> = {}) =>
  driver.readIntoTable(config, { ...req, tenantId: TEST_TENANT }, ws.target(table));

beforeAll(async () => {
  sandbox = await createDataRoot();
  ws = await openTestWorkspace();
});
afterAll(async () => {
  await ws.close();
  await sandbox.remove();
});

describe('file typed read: Parquet keeps its schema', () => {
  it('reads DECIMAL(18,4), BIGINT near 2^63, DATE before 1970, TIMESTAMPTZ, LIST and STRUCT exactly', async () => {
    await mkdir(join(sandbox.home, 'pq'), { recursive: true });
    await writeParquet(join(sandbox.home, 'pq/matrix.parquet'), PARQUET_MATRIX);
    const result = await read({ path: 'pq/matrix.parquet' }, 'matrix');
    expect(result.rows).toBe(3);
    // Each column's source is the Parquet file's own type.
    expect(result.columns).toEqual(
      PARQUET_MATRIX_TYPES.map(([name, type]) => ({ name, type, source_type: `parquet ${type}` })),
    );
    expect(
      await ws.rows(
        `select id, amount::VARCHAR, big::VARCHAR, day::VARCHAR, ts::VARCHAR, tags::VARCHAR, place::VARCHAR from matrix order by id`,
      ),
    ).toEqual([
      [
        1,
        '12345678901234.5678',
        '9223372036854775807',
        '1969-07-20',
        '1965-03-01 12:30:00.123456+00',
        '[1, NULL, 3]',
        "{'city': Kraków, 'zip': 30001}",
      ],
      [
        2,
        '-0.0001',
        '-9223372036854775808',
        '1900-02-28',
        '2024-02-29 23:59:59.999999+00',
        '[]',
        "{'city': NULL, 'zip': NULL}",
      ],
      [3, null, '9223372036854775806', '0001-01-01', null, null, null],
    ]);
    expect(await ws.scratchEntries()).toEqual([]);
  });

  it('casts a Parquet column to the type `columns` gives it', async () => {
    const result = await read(
      { path: 'pq/matrix.parquet', columns: { amount: 'decimal(20, 2)', id: 'VARCHAR' } },
      'matrix_cast',
    );
    expect(result.columns.slice(0, 2)).toEqual([
      { name: 'id', type: 'VARCHAR', source_type: 'parquet INTEGER' },
      { name: 'amount', type: 'DECIMAL(20,2)', source_type: 'parquet DECIMAL(18,4)' },
    ]);
    expect(await ws.rows(`select id, amount::VARCHAR from matrix_cast order by id`)).toEqual([
      ['1', '12345678901234.57'],
      ['2', '0.00'],
      ['3', null],
    ]);
  });
});

describe("file typed read: CSV and JSON lines through DuckDB's sniffer", () => {
  // 0.10 + 0.20 + ... in cents: a DOUBLE sum misses the exact total, DECIMAL(12,2) hits it.
  const amounts = Array.from(
    { length: 2000 },
    (_, i) => `${Math.floor(i / 7)}.${String((i * 37) % 100).padStart(2, '0')}`,
  );
  const exactTotal = (() => {
    const cents = amounts.reduce((sum, a) => sum + BigInt(a.replace('.', '')), 0n);
    return `${cents / 100n}.${String(cents % 100n).padStart(2, '0')}`;
  })();

  beforeAll(async () => {
    await mkdir(join(sandbox.home, 'csv'), { recursive: true });
    const lines = amounts.map((a, i) => `${i + 1},${a},"note ${i}, quoted"`);
    await writeFile(join(sandbox.home, 'csv/payments.csv'), `id,amount,note\n${lines.join('\n')}\n3000,,""\n`);
  });

  it('the sniffer makes amount DOUBLE; columns makes it DECIMAL(12,2), and it sums to the cent', async () => {
    const sniffed = await read({ path: 'csv/payments.csv' }, 'payments_sniffed');
    expect(sniffed.columns).toEqual([
      { name: 'id', type: 'BIGINT', source_type: 'csv (sniffed)' },
      { name: 'amount', type: 'DOUBLE', source_type: 'csv (sniffed)' },
      { name: 'note', type: 'VARCHAR', source_type: 'csv (sniffed)' },
    ]);
    const [[doubleSum]] = (await ws.rows('select sum(amount)::VARCHAR from payments_sniffed')) as [[string]];
    expect(doubleSum).not.toBe(exactTotal);

    const typed = await read(
      { path: 'csv/payments.csv', columns: { amount: 'DECIMAL(12,2)', id: 'INTEGER' } },
      'payments',
    );
    expect(typed.rows).toBe(2001);
    expect(typed.columns).toEqual([
      { name: 'id', type: 'INTEGER', source_type: 'csv (columns)' },
      { name: 'amount', type: 'DECIMAL(12,2)', source_type: 'csv (columns)' },
      { name: 'note', type: 'VARCHAR', source_type: 'csv (sniffed)' },
    ]);
    expect(await ws.rows('select sum(amount)::VARCHAR, count(amount)::INTEGER from payments')).toEqual([
      [exactTotal, 2000],
    ]);
    // An unquoted empty field is NULL, a quoted one the empty string (as the row read had it).
    expect(await ws.rows('select amount, note from payments where id = 3000')).toEqual([[null, '']]);
    expect(await ws.scratchEntries()).toEqual([]);
  });

  it("sniffs every row: a value past DuckDB's default sample makes the column DOUBLE instead of rounding into BIGINT", async () => {
    const rows = Array.from({ length: 30_000 }, (_, i) => `${i},1`);
    await writeFile(join(sandbox.home, 'csv/late.csv'), `id,qty\n${rows.join('\n')}\n30000,2.5\n`);
    const result = await read({ path: 'csv/late.csv' }, 'late');
    expect(result.columns.map((c) => c.type)).toEqual(['BIGINT', 'DOUBLE']);
    expect(await ws.rows('select sum(qty) from late')).toEqual([[30002.5]]);
  });

  it("reads JSON lines with the sniffer's types, keys seen only late included, and columns overrides", async () => {
    await mkdir(join(sandbox.home, 'json'), { recursive: true });
    const lines = Array.from({ length: 25_000 }, (_, i) =>
      JSON.stringify({ id: i, day: '2024-02-29', price: '19.99', tags: ['a', 'b'], meta: { ok: true } }),
    );
    lines.push(
      JSON.stringify({
        id: 9223372036854775807n.toString(),
        day: '1969-12-31',
        price: '0.01',
        tags: [],
        meta: { ok: false },
        late: 'seen',
      }).replace(/"id":"(\d+)"/, '"id":$1'),
    );
    await writeFile(join(sandbox.home, 'json/events.ndjson'), `${lines.join('\n')}\n`);
    const result = await read({ path: 'json/events.ndjson', columns: { price: 'DECIMAL(10,2)' } }, 'events');
    expect(result.rows).toBe(25_001);
    expect(result.columns).toEqual([
      { name: 'id', type: 'BIGINT', source_type: 'json (sniffed)' },
      { name: 'day', type: 'DATE', source_type: 'json (sniffed)' },
      { name: 'price', type: 'DECIMAL(10,2)', source_type: 'json (columns)' },
      { name: 'tags', type: 'VARCHAR[]', source_type: 'json (sniffed)' },
      { name: 'meta', type: 'STRUCT(ok BOOLEAN)', source_type: 'json (sniffed)' },
      { name: 'late', type: 'VARCHAR', source_type: 'json (sniffed)' },
    ]);
    expect(
      await ws.rows(`select id::VARCHAR, day::VARCHAR, price::VARCHAR, late from events where late is not null`),
    ).toEqual([['9223372036854775807', '1969-12-31', '0.01', 'seen']]);
    expect(await ws.rows('select sum(price)::VARCHAR from events')).toEqual([['499750.01']]);
  });

  it('reads a glob of two files in name order as one table with the union of their columns', async () => {
    await mkdir(join(sandbox.home, 'in'), { recursive: true });
    for (const [name, text] of Object.entries(DAILY_FILES)) await writeFile(join(sandbox.home, 'in', name), text);
    const result = await read({ path: 'in/*.csv', columns: DAILY_OVERRIDE }, 'daily');
    expect(result.columns).toEqual(DAILY_COLUMNS);
    await expectDailyRows(ws, 'daily');
  });

  it('a glob that matches nothing gives an empty table', async () => {
    const result = await read({ path: 'in/*.parquet' }, 'nothing');
    expect(result).toEqual({ rows: 0, columns: [{ name: '_empty', type: 'INTEGER' }] });
  });
});

describe('file typed read: what stays refused', () => {
  const refused = (req: ReadRequest, table: string, pattern: RegExp, config: Record<string, unknown> = {}) =>
    expect(read(req, table, config)).rejects.toMatchObject({
      errorClass: 'config_error',
      message: expect.stringMatching(pattern),
    });

  it("a path out of the tenant's folder, by .. or through a symbolic link", async () => {
    const outside = await mkdtemp(join(tmpdir(), 'typed-outside-'));
    try {
      await writeFile(join(outside, 'secret.csv'), 'a\n1\n');
      await refused({ path: '../secret.csv' }, 't1', /leaves the data root/);
      await refused({ path: 'x.csv' }, 't2', /leaves the data root/, { path: '../..' });
      await mkdir(join(sandbox.home, 'links'), { recursive: true });
      await symlink(join(outside, 'secret.csv'), join(sandbox.home, 'links/secret.csv'));
      await refused({ path: 'links/secret.csv' }, 't3', /leaves the data root through a symbolic link/);
      await refused({ path: 'links/*.csv' }, 't4', /leaves the data root through a symbolic link/);
      expect(
        await ws.rows(`select count(*)::INTEGER from duckdb_tables() where table_name in ('t1', 't2', 't3', 't4')`),
      ).toEqual([[0]]);
    } finally {
      await rm(outside, { recursive: true, force: true });
    }
  });

  it('a columns type that could be SQL is refused before DuckDB sees it; a type DuckDB does not know names its column', async () => {
    await refused(
      { path: 'csv/payments.csv', columns: { x: 'INTEGER); select 1; --' } },
      'inj1',
      /^columns\.x must be a DuckDB type: only letters/,
    );
    await refused(
      { path: 'csv/payments.csv', columns: { amount: "DECIMAL(12,2)'), (select 1" } },
      'inj2',
      /^columns\.amount must be a DuckDB type/,
    );
    await refused(
      { path: 'csv/payments.csv', columns: { amount: 'MONEY' } },
      'bad1',
      /^columns\.amount: "MONEY" is not a DuckDB type/,
    );
    await refused(
      { path: 'pq/matrix.parquet', columns: { amount: 'DECIMAL(12,2) x' } },
      'bad2',
      /^columns\.amount: "DECIMAL\(12,2\) x" is not a DuckDB type/,
    );
    await refused(
      { path: 'csv/payments.csv', columns: { amout: 'DECIMAL(12,2)' } },
      'typo',
      /columns names "amout", which the data does not have \(its columns: id, amount, note\)/,
    );
    await refused({ path: 'csv/payments.csv', columns: ['amount'] }, 'shape', /^columns must be an object/);
    expect(await ws.scratchEntries()).toEqual([]);
  });

  it("a value the declared type cannot hold fails the read with the file's own name, leaving no table and no scratch file", async () => {
    const err = await read({ path: 'csv/payments.csv', columns: { note: 'INTEGER' } }, 'wrong').catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ConnectorError);
    expect(err).toMatchObject({ errorClass: 'config_error' });
    const message = (err as Error).message;
    expect(message).toMatch(/csv\/payments\.csv/);
    expect(message).toMatch(/Set the column's type in the node's "columns"/);
    expect(message).not.toContain(ws.scratchDir);
    expect(message).not.toMatch(/Original Line/);
    expect(await ws.rows(`select count(*)::INTEGER from duckdb_tables() where table_name = 'wrong'`)).toEqual([[0]]);
    expect(await ws.scratchEntries()).toEqual([]);
  });
});

describe('bringing a file into the scratch folder', () => {
  it('hard-links a file of the same file system (no copy): the real path it is given, which listing resolved', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'typed-bring-'));
    try {
      await writeFile(join(folder, 'data.csv'), 'a\n1\n');
      await bringLocalFile(join(folder, 'data.csv'), join(folder, 'linked.csv'), new ScratchAllowance(folder, 1)); // a link takes no room: nothing counted
      expect((await stat(join(folder, 'data.csv'))).nlink).toBe(2);
      expect((await stat(join(folder, 'linked.csv'))).ino).toBe((await stat(join(folder, 'data.csv'))).ino);
      await expect(link(join(folder, 'data.csv'), join(folder, 'linked.csv'))).rejects.toMatchObject({
        code: 'EEXIST',
      });
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });
});
