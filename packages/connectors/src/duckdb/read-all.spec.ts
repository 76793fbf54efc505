import { DuckDBInstance, type DuckDBConnection, type DuckDBMaterializedResult } from '@duckdb/node-api';
import { readAll } from './read-all.js';

let instance: DuckDBInstance;
let connection: DuckDBConnection;

beforeAll(async () => {
  instance = await DuckDBInstance.create(':memory:', { threads: '1' });
  connection = await instance.connect();
});
afterAll(() => {
  connection.closeSync();
  instance.closeSync();
});

describe('readAll', () => {
  it('reads a result of many chunks whole and in order, as runAndReadAll does', async () => {
    const sql = 'select i, i::varchar as s from range(5000) t(i) order by i';
    const reader = await readAll(connection.run(sql));
    // More than one chunk of DuckDB's 2,048 rows: every chunk is taken, not only the first.
    expect(reader.currentRowCount).toBe(5000);
    expect(reader.getRows()).toEqual((await connection.runAndReadAll(sql)).getRows());
    expect(reader.columnNames()).toEqual(['i', 's']);
  });

  it('reads an empty result and its columns', async () => {
    const reader = await readAll(connection.run('select 1 as one, 2 as two where false'));
    expect(reader.getRows()).toEqual([]);
    expect(reader.columnNames()).toEqual(['one', 'two']);
  });

  it('reads a statement run with values, and a prepared statement, as runAndReadAll does', async () => {
    expect((await readAll(connection.run('select $1::integer + 1 as n', [41]))).getRows()).toEqual([[42]]);
    const prepared = await connection.prepare('select $1::varchar as s');
    try {
      prepared.bindVarchar(1, 'x');
      expect((await readAll(prepared.run())).getRowObjects()).toEqual([{ s: 'x' }]);
    } finally {
      prepared.destroySync();
    }
  });

  it("answers a CREATE TABLE ... AS statement's count of rows written", async () => {
    const reader = await readAll(connection.run('create or replace table t as select * from range(3000)'));
    expect(Number(reader.getRows()[0]?.[0])).toBe(3000);
  });

  it('fails with the statement, leaving nothing to read', async () => {
    await expect(readAll(connection.run('select * from no_such_table'))).rejects.toThrow(/no_such_table/);
  });

  it('refuses a streaming result rather than reading it as empty', async () => {
    const streaming = await connection.stream('select 1');
    await expect(readAll(streaming as unknown as DuckDBMaterializedResult)).rejects.toThrow(/materialized/);
  });

  it('reads every type as runAndReadAll does, on an instance of more than one thread', async () => {
    const threaded = await DuckDBInstance.create(':memory:', { threads: '2' });
    const c = await threaded.connect();
    try {
      const sql = `select i, i::decimal(18,3) / 7 as d, repeat('x', i % 50) as s, [i, null] as l,
        {'a': i, 'b': i::varchar} as st, map([i], [i::varchar]) as m, (i % 3)::varchar::enum('0', '1', '2') as e,
        date '2024-01-01' + i::integer as day, case when i % 5 = 0 then null else i end as n
        from range(10000) t(i) where i % 7 <> 3 order by i`;
      expect((await readAll(c.run(sql))).getRowsJson()).toEqual((await c.runAndReadAll(sql)).getRowsJson());
    } finally {
      c.closeSync();
      threaded.closeSync();
    }
  });
});
