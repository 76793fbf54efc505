import duckdb from '@duckdb/node-api';
import { runOneStatement } from './one-statement.js';

describe('runOneStatement', () => {
  it('runs one statement, and refuses text that is two without running either', async () => {
    const instance = await duckdb.DuckDBInstance.create(':memory:');
    const connection = await instance.connect();
    try {
      const made = await runOneStatement(connection, "create table made (a ENUM('x\"); y', 'z'))");
      expect(made.rowsChanged).toBe(0);
      // What a type printed raw could make of the statement around it.
      await expect(
        runOneStatement(connection, 'create table t (a INTEGER); create table u (b INTEGER); --)'),
      ).rejects.toThrow('cannot be used in a run');
      const tables = await connection.runAndReadAll('select table_name from duckdb_tables() order by 1');
      expect(tables.getRows()).toEqual([['made']]);
    } finally {
      connection.closeSync();
      instance.closeSync();
    }
  });
});
