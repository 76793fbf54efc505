import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startS3Server, writeParquet } from '@conduit/testing';
import {
  DEFAULT_TRANSFER_BUFFERS,
  getDriver,
  type ConnectorDriver,
  type ConnectorError,
  type ReadRequest,
} from '../src/index.js';
import { DAILY_COLUMNS, DAILY_FILES, DAILY_OVERRIDE, expectDailyRows } from './support/daily-csvs.js';
import { sendJson, startHttpFixture } from './support/http-fixture.js';
import { allowPrivateNetworks, setEnv } from './support/network-policy.js';
import { openTestWorkspace } from './support/run-workspace.js';
import { suiteFixture } from './support/suite-fixture.js';
import { PARQUET_MATRIX, PARQUET_MATRIX_TYPES } from './support/parquet-fixture.js';

// The test servers listen on this machine, which the default network policy refuses.
allowPrivateNetworks();

const s3Driver = getDriver('s3') as Required<ConnectorDriver>;
const httpDriver = getDriver('http') as Required<ConnectorDriver>;
const s3 = suiteFixture(startS3Server, (server) => server.close());
const api = suiteFixture(startHttpFixture, (fixture) => fixture.close());
const ws = suiteFixture(
  () => openTestWorkspace(),
  (workspace) => workspace.close(),
);

const readS3 = (req: ReadRequest, table: string, config: Record<string, unknown> = {}) =>
  s3Driver.readIntoTable(s3.config(config), req, ws.target(table));

describe('s3 typed read', () => {
  it('streams a Parquet object into the scratch folder and keeps its schema', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'typed-s3-pq-'));
    try {
      await writeParquet(join(folder, 'm.parquet'), PARQUET_MATRIX);
      await s3.put('typed/matrix.parquet', await readFile(join(folder, 'm.parquet')));
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
    const result = await readS3({ path: 'typed/matrix.parquet' }, 's3_matrix');
    expect(result.rows).toBe(3);
    expect(result.columns.map((c) => [c.name, c.type])).toEqual(PARQUET_MATRIX_TYPES);
    expect(
      await ws.rows('select amount::VARCHAR, big::VARCHAR, day::VARCHAR, tags::VARCHAR from s3_matrix order by id'),
    ).toEqual([
      ['12345678901234.5678', '9223372036854775807', '1969-07-20', '[1, NULL, 3]'],
      ['-0.0001', '-9223372036854775808', '1900-02-28', '[]'],
      [null, '9223372036854775806', '0001-01-01', null],
    ]);
    expect(await ws.scratchEntries()).toEqual([]);
  });

  it('reads a glob of two CSV objects in key order, with an override that sums to the cent', async () => {
    for (const [name, text] of Object.entries(DAILY_FILES)) await s3.put(`sales/${name}`, text);
    const result = await readS3({ path: '*.csv', columns: DAILY_OVERRIDE }, 's3_sales', { prefix: 'sales' });
    expect(result.columns).toEqual(DAILY_COLUMNS);
    await expectDailyRows(ws, 's3_sales');
  });

  it('names the object key (never the scratch file) when a value does not fit, and refuses an injected type', async () => {
    await s3.put('bad/one.jsonl', '{"id": 1, "n": "x"}\n');
    const err = (await readS3({ path: 'bad/one.jsonl', columns: { n: 'INTEGER' } }, 's3_bad').catch(
      (e: unknown) => e,
    )) as Error & { errorClass: string };
    expect(err.errorClass).toBe('config_error');
    expect(err.message).toContain('bad/one.jsonl');
    expect(err.message).not.toContain(ws.scratchDir);
    await expect(
      readS3({ path: 'bad/one.jsonl', columns: { n: 'INTEGER); select 1; --' } }, 's3_inj'),
    ).rejects.toMatchObject({
      errorClass: 'config_error',
      message: expect.stringMatching(/^columns\.n must be a DuckDB type/),
    });
    expect(await ws.scratchEntries()).toEqual([]);
  });

  it('keeps the network policy: a loopback endpoint is refused without the operator setting', async () => {
    const restore = setEnv({ CONNECTOR_ALLOW_PRIVATE_NETWORKS: undefined });
    try {
      await expect(readS3({ path: 'sales/2024-01-01.csv' }, 's3_refused')).rejects.toMatchObject({
        errorClass: 'config_error',
        code: 'network_policy',
      });
    } finally {
      restore();
    }
    expect(await ws.scratchEntries()).toEqual([]);
  });
});

describe('http typed read', () => {
  const readHttp = (req: ReadRequest, table: string) =>
    httpDriver.readIntoTable({ base_url: api.baseUrl }, req, ws.target(table));

  it("types the records of every page with DuckDB's JSON reader and the columns overrides", async () => {
    // Three pages of two: amounts as strings (exact), ids past 2^31, dates, nested objects and lists.
    api.route('/orders', (req, res) => {
      const page = Number(req.url.searchParams.get('page'));
      const items =
        page > 3
          ? []
          : [0, 1].map((k) => {
              const n = (page - 1) * 2 + k;
              return {
                id: 3_000_000_000 + n,
                amount: `${n}.${n % 10}1`,
                placed: `2024-02-2${n}`,
                customer: { name: `c${n}`, vip: n % 2 === 0 },
                tags: [`t${n}`],
              };
            });
      sendJson(res, 200, { data: { items } });
    });
    const result = await readHttp(
      {
        path: '/orders',
        records_path: 'data.items',
        pagination: 'page',
        per_page: 2,
        columns: { amount: 'DECIMAL(12,2)' },
      },
      'orders',
    );
    expect(result.rows).toBe(6);
    expect(result.columns).toEqual([
      { name: 'id', type: 'BIGINT', source_type: 'json (sniffed)' },
      { name: 'amount', type: 'DECIMAL(12,2)', source_type: 'json (columns)' },
      { name: 'placed', type: 'DATE', source_type: 'json (sniffed)' },
      { name: 'customer', type: 'STRUCT("name" VARCHAR, vip BOOLEAN)', source_type: 'json (sniffed)' },
      { name: 'tags', type: 'VARCHAR[]', source_type: 'json (sniffed)' },
    ]);
    expect(await ws.rows('select sum(amount)::VARCHAR, max(id)::VARCHAR, min(placed)::VARCHAR from orders')).toEqual([
      ['16.56', '3000000005', '2024-02-20'],
    ]);
    expect(api.requests.filter((r) => r.url.pathname === '/orders')).toHaveLength(4);
    expect(await ws.scratchEntries()).toEqual([]);
  });

  it('gives an empty table when the API has no records, and a non-object record becomes { value }', async () => {
    api.route('/none', (_req, res) => sendJson(res, 200, { data: [] }));
    api.route('/scalars', (_req, res) => sendJson(res, 200, [1.5, 2.25]));
    expect(await readHttp({ path: '/none', records_path: 'data' }, 'none')).toEqual({
      rows: 0,
      columns: [{ name: '_empty', type: 'INTEGER' }],
    });
    const scalars = await readHttp({ path: '/scalars' }, 'scalars');
    expect(scalars.columns).toEqual([{ name: 'value', type: 'DOUBLE', source_type: 'json (sniffed)' }]);
    expect(await ws.rows('select sum(value) from scalars')).toEqual([[3.75]]);
  });

  it('keeps ids past 2^53 and integers past 64 bits exact: never a JS number, never a DOUBLE', async () => {
    // Raw text: JSON.stringify could not write these numbers.
    const body =
      '{"items": [{"id": 9007199254740993, "big": 12345678901234567890123, "price": 1.10},' +
      ' {"id": 42, "big": -5, "price": 2}], "next": 9007199254740995}';
    api.route('/big', (req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(req.url.searchParams.has('after') ? '{"items": [], "next": null}' : body);
    });
    const result = await readHttp(
      { path: '/big', records_path: 'items', pagination: 'cursor', cursor_path: 'next', cursor_param: 'after' },
      'big_numbers',
    );
    expect(result.columns.map((c) => [c.name, c.type])).toEqual([
      ['id', 'BIGINT'],
      ['big', 'HUGEINT'],
      ['price', 'DOUBLE'],
    ]);
    expect(await ws.rows('select id::VARCHAR, big::VARCHAR, price from big_numbers order by id desc')).toEqual([
      ['9007199254740993', '12345678901234567890123', 1.1],
      ['42', '-5', 2],
    ]);
    // The cursor went out as the server wrote it.
    expect(api.requests.find((r) => r.url.searchParams.has('after'))?.url.searchParams.get('after')).toBe(
      '9007199254740995',
    );
  });

  it('refuses a page larger than the run parses at once, naming the limit, before parsing it', async () => {
    // 2 MiB of records: within the default (a sixteenth of 88 MiB), past a run given 1 MiB for a page.
    const items = Array.from({ length: 20_000 }, (_v, n) => ({ id: n, note: 'x'.repeat(90) }));
    api.route('/wide', (_req, res) => sendJson(res, 200, items));
    const small = {
      ...ws.target('wide_small'),
      buffers: { ...DEFAULT_TRANSFER_BUFFERS, jsonPageMaxBytes: 1024 * 1024 },
    };
    const err = (await httpDriver
      .readIntoTable({ base_url: api.baseUrl }, { path: '/wide' }, small)
      .catch((e: unknown) => e)) as ConnectorError;
    expect(err).toMatchObject({ errorClass: 'config_error', code: 'response_too_large' });
    expect(err.message).toMatch(/answered a page larger than 1\.0 MiB, the most a run parses at once .*smaller pages/);
    expect((await readHttp({ path: '/wide' }, 'wide')).rows).toBe(20_000);
    expect(await ws.scratchEntries()).toEqual([]);
  });

  it('refuses records of more distinct fields than a table takes columns, before DuckDB reads them', async () => {
    // One record of 55,000 fields (5 MB) kept DuckDB's JSON reader busy for minutes; 200 over two pages are refused.
    const fields = (from: number, to: number) =>
      Object.fromEntries(Array.from({ length: to - from }, (_v, i) => [`field_${from + i}`, i]));
    api.route('/fields', (req, res) =>
      sendJson(res, 200, req.url.searchParams.get('page') === '2' ? [fields(100, 200)] : [fields(0, 100)]),
    );
    const err = (await readHttp({ path: '/fields', pagination: 'page', per_page: 1, max_pages: 2 }, 'fields').catch(
      (e: unknown) => e,
    )) as ConnectorError;
    expect(err).toMatchObject({ errorClass: 'config_error', code: 'too_many_columns' });
    expect(err.message).toMatch(/more than 199 distinct fields/);
    // 199 pass, as columns.
    api.route('/enough', (_req, res) => sendJson(res, 200, [fields(0, 199)]));
    expect((await readHttp({ path: '/enough' }, 'enough')).rows).toBe(1);
    expect(await ws.scratchEntries()).toEqual([]);
  });

  it('fails as before when a page fails, and leaves nothing in the scratch folder', async () => {
    api.route('/broken', (req, res) =>
      req.url.searchParams.get('page') === '2' ? sendJson(res, 404, { error: 'gone' }) : sendJson(res, 200, [{ a: 1 }]),
    );
    await expect(readHttp({ path: '/broken', pagination: 'page', per_page: 1 }, 'broken')).rejects.toMatchObject({
      errorClass: 'config_error',
    });
    expect(await ws.rows(`select count(*)::INTEGER from duckdb_tables() where table_name = 'broken'`)).toEqual([[0]]);
    expect(await ws.scratchEntries()).toEqual([]);
  });
});
