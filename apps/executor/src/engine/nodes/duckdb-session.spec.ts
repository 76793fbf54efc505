import duckdb, { type DuckDBConnection, type DuckDBInstance } from '@duckdb/node-api';
import type { RunWorkspace } from '../../data/run-workspace.js';
import { withDuckDB } from './duckdb-session.js';

describe('withDuckDB', () => {
  let instance: DuckDBInstance;
  /** The two calls withDuckDB makes of a run's workspace, on a bare instance. */
  let workspace: RunWorkspace;

  beforeAll(async () => {
    instance = await duckdb.DuckDBInstance.create(':memory:');
    workspace = {
      connect: () => instance.connect(),
      release: (connection: DuckDBConnection) => connection.closeSync(),
    } as unknown as RunWorkspace;
  });
  afterAll(() => instance.closeSync());

  it('stops a statement that starts after the abort landed between two statements', async () => {
    const cancel = new AbortController();
    let secondStatement = 'not run';
    const done = withDuckDB(workspace, cancel.signal, async (connection) => {
      await connection.run('select 1');
      cancel.abort(new Error('canceled'));
      // DuckDB clears a pending interrupt when this statement starts; without the repeated interrupt it would sleep
      // its whole 20 s (past jest's timeout) and answer normally.
      await connection.run('select sleep_ms(20000)');
      secondStatement = 'finished';
    });
    await expect(done).rejects.toThrow('canceled');
    expect(secondStatement).toBe('not run');
  });
});
