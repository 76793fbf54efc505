import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import type { Row } from '../types.js';
import { heapSizedSelect, rowBatches, type HeapBound } from './result-rows.js';

let instance: DuckDBInstance;
let connection: DuckDBConnection;

beforeAll(async () => {
  instance = await DuckDBInstance.create(':memory:');
  connection = await instance.connect();
  await connection.run("set TimeZone = 'UTC'");
});
afterAll(() => {
  connection.closeSync();
  instance.closeSync();
});

async function rowsOf(sql: string, batchRows = 1000): Promise<Row[][]> {
  const batches: Row[][] = [];
  for await (const batch of rowBatches(await connection.stream(sql), batchRows)) batches.push(batch);
  return batches;
}

const one = async (sql: string): Promise<Row> => (await rowsOf(sql))[0]![0]!;

describe('rowBatches', () => {
  it('converts each DuckDB type one way (docs/type-mapping.md, "Rows in JS")', async () => {
    expect(
      await one(`select
        true as b, (-128)::TINYINT as ti, 255::UTINYINT as uti, (-32768)::SMALLINT as si, 2147483647::INTEGER as i,
        4294967295::UINTEGER as ui,
        9007199254740991::BIGINT as big_safe, 9223372036854775807::BIGINT as big_max,
        (-9223372036854775808)::BIGINT as big_min, 18446744073709551615::UBIGINT as ubig_max,
        170141183460469231731687303715884105727::HUGEINT as huge_max, 42::HUGEINT as huge_small,
        12.50::DECIMAL(12,2) as dec, 1234567890123456789.0123456789::DECIMAL(38,10) as dec_wide,
        1.5::FLOAT as f, -0.0::DOUBLE as d_neg_zero, 1e300::DOUBLE as d_big,
        'it''s, "quoted"' as s, '' as empty,
        date '1900-02-28' as day, time '23:59:59.999999' as t,
        timestamp '2024-02-29 12:34:56.123456' as ts, timestamptz '2024-02-29 18:29:59.999+00' as tstz,
        timestamp_ms '2024-01-02 03:04:05.006' as ts_ms, timestamp_s '2024-01-02 03:04:05' as ts_s,
        timestamp 'infinity' as ts_inf, timestamptz '-infinity' as tstz_ninf,
        interval '1 year 2 days 3 seconds' as iv, 'c0ffee00-0000-4000-8000-000000000001'::UUID as u,
        '\\x00\\xFF'::BLOB as bl, [1, NULL, 3] as list, ['a', NULL] as vlist,
        {'n': 1, 's': 'x', 'at': timestamp '2024-01-02 03:04:05'} as st, [9223372036854775807] as biglist,
        'nan'::DOUBLE as nan, 'inf'::FLOAT as inf, '-inf'::DOUBLE as ninf, date '0044-03-15 (BC)' as bc,
        timetz '12:00:00+02' as ttz, 'a'::ENUM('a', 'b') as e, '101'::BIT as bit, 123::VARINT as vi,
        '{"a": 1}'::JSON as j, MAP {'k': 1} as m, [1, 2]::INTEGER[2] as arr, union_value(n := 1) as un,
        NULL::INTEGER as nul`),
    ).toEqual({
      b: true,
      ti: -128,
      uti: 255,
      si: -32768,
      i: 2147483647,
      ui: 4294967295,
      big_safe: 9007199254740991,
      big_max: '9223372036854775807',
      big_min: '-9223372036854775808',
      ubig_max: '18446744073709551615',
      huge_max: '170141183460469231731687303715884105727',
      huge_small: 42,
      dec: '12.50',
      dec_wide: '1234567890123456789.0123456789',
      f: 1.5,
      d_neg_zero: -0,
      d_big: 1e300,
      s: 'it\'s, "quoted"',
      empty: '',
      day: '1900-02-28',
      t: '23:59:59.999999',
      ts: '2024-02-29T12:34:56.123456Z',
      tstz: '2024-02-29T18:29:59.999Z',
      ts_ms: '2024-01-02T03:04:05.006Z',
      ts_s: '2024-01-02T03:04:05.000Z',
      ts_inf: 'infinity',
      tstz_ninf: '-infinity',
      iv: { months: 12, days: 2, micros: '3000000' },
      u: 'c0ffee00-0000-4000-8000-000000000001',
      bl: '\\x00\\xFF',
      list: [1, null, 3],
      vlist: ['a', null],
      st: { n: 1, s: 'x', at: '2024-01-02T03:04:05.000Z' },
      biglist: ['9223372036854775807'],
      nan: 'NaN',
      inf: 'Infinity',
      ninf: '-Infinity',
      bc: '0044-03-15 (BC)',
      ttz: '12:00:00+02',
      e: 'a',
      bit: '101',
      vi: '123',
      j: '{"a": 1}',
      m: [{ key: 'k', value: 1 }],
      arr: [1, 2],
      un: { tag: 'n', value: 1 },
      nul: null,
    });
  });

  it('keeps every digit of a timestamp, floors before 1970, and spells infinities as DuckDB does', async () => {
    expect(
      await one(`select
        timestamp '2024-02-29 12:34:56.000001' as micro, timestamptz '2024-02-29 12:34:56.5+00' as half,
        timestamp_ns '2024-02-29 12:34:56.123456789' as nano, timestamp_ns '2024-02-29 12:34:56.123' as nano_ms,
        timestamp '1969-12-31 23:59:59.9995' as before_epoch, timestamp_ns '1969-12-31 23:59:59.999999999' as ns_before,
        timestamp_ns 'infinity' as ns_inf, timestamp_s '-infinity' as s_ninf, timestamp_ms 'infinity' as ms_inf,
        timestamp '290000-01-01 00:00:00' as beyond_date`),
    ).toEqual({
      micro: '2024-02-29T12:34:56.000001Z',
      half: '2024-02-29T12:34:56.500Z',
      nano: '2024-02-29T12:34:56.123456789Z',
      nano_ms: '2024-02-29T12:34:56.123Z',
      before_epoch: '1969-12-31T23:59:59.999500Z',
      ns_before: '1969-12-31T23:59:59.999999999Z',
      ns_inf: 'infinity',
      s_ninf: '-infinity',
      ms_inf: 'infinity',
      beyond_date: '290000-01-01 00:00:00',
    });
  });

  it('yields batches of at most batchRows across chunks, under deduplicated names', async () => {
    // 5000 rows span three of DuckDB's 2048-row chunks.
    const batches = await rowsOf('select range as id, range as id from range(5000)', 1500);
    expect(batches.map((b) => b.length)).toEqual([1500, 1500, 1500, 500]);
    expect(batches[3]![499]).toEqual({ id: 4999, 'id:1': 4999 });
    expect(await rowsOf('select 1 as x where false')).toEqual([]);
  });

  it('keeps a column named __proto__ as an own key of an ordinary object, never as its prototype', async () => {
    const row = await one(`select 1 as "__proto__", 2 as "constructor", 'x' as plain`);
    expect(Object.getPrototypeOf(row)).toBe(Object.prototype);
    expect(Object.keys(row)).toEqual(['__proto__', 'constructor', 'plain']);
    expect(Object.getOwnPropertyDescriptor(row, '__proto__')).toMatchObject({ value: 1, enumerable: true });
    expect(JSON.parse(JSON.stringify(row))).toEqual(JSON.parse('{"__proto__": 1, "constructor": 2, "plain": "x"}'));
    // A struct-valued __proto__ column must not become the row's prototype either.
    const nested = await one(`select {'polluted': true} as "__proto__"`);
    expect(Object.getPrototypeOf(nested)).toBe(Object.prototype);
    expect((nested as { polluted?: unknown }).polluted).toBeUndefined();
  });

  it('stops when its signal is aborted', async () => {
    const stop = new AbortController();
    const batches = rowBatches(await connection.stream('select range from range(10000)'), 100, stop.signal);
    await batches.next();
    stop.abort(new Error('stopped'));
    // The rows of the chunk already converted are still handed out; the next chunk is not fetched.
    let yielded = 0;
    await expect(
      (async () => {
        for await (const batch of batches) yielded += batch.length;
      })(),
    ).rejects.toThrow('stopped');
    expect(yielded).toBeLessThan(2048);
  });
});

describe('rowBatches under a heap bound (heapSizedSelect)', () => {
  const TYPES = `select i as id, 'row ' || i as "__proto__", [i, i + 1] as l, {'a': i % 2 = 0} as st,
    timestamptz '2024-02-29 18:29:59.999+00' + i * interval '1 second' as at, 12.50::DECIMAL(12,2) as dec,
    null::varchar as nothing, 'é' as accent from range(3000) r(i)`;

  async function sized(sql: string, batchRows: number, bound: Omit<HeapBound, 'chunk'>, chunk = 1 << 30) {
    const batches: Row[][] = [];
    const result = await connection.stream(await heapSizedSelect(connection, `(${sql})`));
    for await (const batch of rowBatches(result, batchRows, undefined, { ...bound, chunk })) batches.push(batch);
    return batches;
  }

  it('converts every row as the unbounded read does, row by row across chunks', async () => {
    const plain = (await rowsOf(TYPES, 5000)).flat();
    const bounded = (await sized(TYPES, 5000, { batch: 1 << 30, row: 1 << 30 })).flat();
    expect(bounded).toHaveLength(3000);
    expect(bounded).toEqual(plain);
    expect(Object.keys(bounded[0]!)).toEqual(Object.keys(plain[0]!));
    expect(Object.getPrototypeOf(bounded[0]!)).toBe(Object.prototype);
  });

  it("yields a batch before it would pass the bound, each batch's JSON within it", async () => {
    const sql = "select i as n, repeat('x', 90) as pad from range(1000) r(i)";
    const batches = await sized(sql, 5000, { batch: 2000, row: 2000 });
    expect(batches.flat()).toHaveLength(1000);
    expect(batches.length).toBeGreaterThan(40);
    for (const batch of batches) expect(JSON.stringify(batch).length).toBeLessThanOrEqual(2000 + 2 + 40 * batch.length);
    // Still at most batchRows a batch when rows are small.
    expect((await sized(sql, 100, { batch: 1 << 30, row: 1 << 30 })).map((b) => b.length)).toEqual(Array(10).fill(100));
  });

  it('fails on a row past the row bound before converting it, naming its size', async () => {
    const sql = "select 1 as a union all select 2 union all select length(repeat('x', 10)) as a";
    await expect(
      sized("select 'small' as s union all select repeat('y', 5000)", 10, { batch: 1000, row: 1000 }),
    ).rejects.toMatchObject({
      errorClass: 'config_error',
      message: expect.stringMatching(/^row 2 takes about 5002 bytes as JS values, more than a batch may hold \(1000\)/),
    });
    expect((await sized(sql, 10, { batch: 1000, row: 1000 })).flat()).toHaveLength(3);
  });

  it('fails on a chunk past the chunk bound before converting it, naming its rows', async () => {
    await expect(
      sized("select repeat('z', 100) as s from range(3000)", 5000, { batch: 1 << 20, row: 1 << 20 }, 100_000),
    ).rejects.toMatchObject({
      errorClass: 'config_error',
      message: expect.stringMatching(
        /^rows 1 to 2048 take about 208896 bytes as JS values, more than 100000 converted at once/,
      ),
    });
  });

  it('measures text and bytes by their length, nested values by their JSON eight times over', async () => {
    const sizesOf = async (sql: string) => {
      const reader = await connection.runAndReadAll(await heapSizedSelect(connection, `(${sql})`));
      const row = reader.getRows()[0]!;
      return row.slice(row.length / 2).map(Number);
    };
    expect(
      await sizesOf(`select 'abc' as s, '\\x00\\xFF'::BLOB as b, [1, 22] as l, {'k': 'v'} as st, null as n, 7 as i`),
    ).toEqual([5, 10, 48, 72, 4, 1]);
  });
});
