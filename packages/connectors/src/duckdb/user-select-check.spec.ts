import duckdb, { type DuckDBConnection } from '@duckdb/node-api';
import { checkUserSelect } from './user-sql.js';

let instance: duckdb.DuckDBInstance;
let connection: DuckDBConnection;

beforeAll(async () => {
  instance = await duckdb.DuckDBInstance.create(':memory:');
  connection = await instance.connect();
  await connection.run('create table t as select 1 as n');
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
