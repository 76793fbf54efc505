import duckdb, { type DuckDBConnection } from '@duckdb/node-api';
import { checkUserSelect, prepareUserSql } from './user-sql.js';

let instance: duckdb.DuckDBInstance;
let connection: DuckDBConnection;

beforeAll(async () => {
  instance = await duckdb.DuckDBInstance.create(':memory:');
  connection = await instance.connect();
  await connection.run('create table t as select 1 as n');
  // Only the bound plan sees through a view: the text and the parse tree name `sv` alone.
  await connection.run("create view sv as select current_setting('threads') as s");
});

afterAll(() => {
  connection.closeSync();
  instance.closeSync();
});

describe('checkUserSelect', () => {
  // The second check of a text finds its verdict held and skips extracting its statements: it must answer the same.
  it('answers a text the same at every check, the first and those that find its verdict held', async () => {
    for (let i = 0; i < 2; i++) {
      await expect(checkUserSelect(connection, 'select n from t')).resolves.toBeUndefined();
      await expect(checkUserSelect(connection, 'select n from t; select 2')).rejects.toThrow(
        'holds 2 statements: only one statement is allowed',
      );
      await expect(checkUserSelect(connection, "select current_setting('memory_limit')")).rejects.toThrow(
        /current_setting/,
      );
      await expect(checkUserSelect(connection, 'create table u (a int)')).rejects.toThrow(
        'must be one SELECT statement',
      );
    }
  });
});

describe('prepareUserSql', () => {
  // From the second check of a text on, its verdict is held and it is prepared from the text, not extracted first.
  it('answers a text the same at every check, the first and those that find its verdict held', async () => {
    const create = 'create or replace table u as (\nselect n + 1 as m from t\n)';
    for (let i = 0; i < 3; i++) {
      const prepared = await prepareUserSql(connection, create, 'statement');
      try {
        expect(Number((await prepared.runAndReadAll()).getRows()[0]?.[0])).toBe(1);
      } finally {
        prepared.destroySync();
      }
      await expect(prepareUserSql(connection, 'select n from t; drop table t', 'statement')).rejects.toThrow(
        'holds 2 statements: only one statement is allowed',
      );
      // The plan's check still runs at every check: a setting reached through a view is refused each time.
      await expect(
        prepareUserSql(connection, 'create or replace table v as (select * from sv)', 'statement'),
      ).rejects.toThrow(/calls current_setting\(\), which is not allowed/);
      await expect(prepareUserSql(connection, 'select * from no_such_table', 'select')).rejects.toThrow(
        /no_such_table/,
      );
    }
    expect(Number((await connection.runAndReadAll('select count(*) from t')).getRows()[0]?.[0])).toBe(1);
  });

  it('says a text without a statement holds none, not that a callback failed', async () => {
    for (const sql of ['-- only a comment', '/* and another */', ';', '   ']) {
      await expect(checkUserSelect(connection, sql)).rejects.toThrow(
        'is not valid SQL: it holds no statement, only comments or spaces',
      );
      await expect(prepareUserSql(connection, sql, 'statement')).rejects.toThrow(
        'is not valid SQL: it holds no statement, only comments or spaces',
      );
    }
  });

  it('prepares a text whose verdict checkUserSelect left held, and checks its plan', async () => {
    const sql = 'select s from sv where s is not null';
    // Its tree reads a view: the text passes, and only the plan, checked by the prepare from the text, refuses it.
    await expect(checkUserSelect(connection, sql)).resolves.toBeUndefined();
    await expect(prepareUserSql(connection, sql, 'select')).rejects.toThrow(/calls current_setting\(\)/);
    const plain = 'select n * 2 as twice from t';
    await checkUserSelect(connection, plain);
    const prepared = await prepareUserSql(connection, plain, 'select');
    try {
      expect((await prepared.runAndReadAll()).getRowObjects()).toEqual([{ twice: 2 }]);
    } finally {
      prepared.destroySync();
    }
  });
});
