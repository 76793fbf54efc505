// The pool hands each run a database nobody else holds, empty and locked, reuses it after the run, and removes the
// run's folders.
import { readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { runMemory } from './run-memory.js';
import { WorkspacePool } from './workspace-pool.js';

const dataDir = join(tmpdir(), `conduit-pool-spec-${process.pid}`);

afterAll(async () => {
  await rm(dataDir, { recursive: true, force: true });
});

describe('WorkspacePool', () => {
  it('gives concurrent runs databases of their own and a later run a recycled one, without the earlier tables', async () => {
    const pool = new WorkspacePool({ dataDir, memory: runMemory(128 * 1024 * 1024, 1) }, pino({ level: 'silent' }), 1);
    pool.warm();
    const first = await pool.take('run_a');
    const second = await pool.take('run_b');
    expect(second.database).not.toBe(first.database);
    const connection = await first.connect();
    await connection.run('create table t as select 1 as n');
    await expect(connection.run("set memory_limit = '10GB'")).rejects.toThrow(/configuration has been locked/);
    const other = await second.connect();
    await expect(other.run('select * from t')).rejects.toThrow(/does not exist/);

    pool.release(first);
    pool.release(second);
    await pool.settled();
    // One database kept (maxIdle 1), the other closed with its folder; no run's folder left.
    const [kept, ...none] = await readdir(dataDir);
    expect(none).toEqual([]);
    expect((await readdir(join(dataDir, kept!))).filter((name) => name !== 'scratch')).toEqual([]);
    expect(await readdir(join(dataDir, kept!, 'scratch'))).toEqual([]);

    const third = await pool.take('run_c');
    expect([first.database, second.database]).toContain(third.database);
    await expect((await third.connect()).run('select * from t')).rejects.toThrow(/does not exist/);
    // A run taken while the last one's database is being recycled waits for it instead of opening another.
    pool.release(third);
    const fourth = await pool.take('run_d');
    expect(fourth.database).toBe(third.database);
    pool.release(fourth);
    await pool.close();
    expect(await readdir(dataDir)).toEqual([]);
  });

  it("never hands a run's instance to the next while a connection of the last one is open (it reads none of its tables)", async () => {
    const pool = new WorkspacePool({ dataDir, memory: runMemory(128 * 1024 * 1024, 1) }, pino({ level: 'silent' }), 1);
    const first = await pool.take('run_a');
    // Opened around the workspace, so its end does not close it: the reviewer's stale connection.
    const stale = await first.database.connect(first.database.currentRun);
    await stale.run('create table a_rows as select 1 as n');
    pool.release(first);
    await pool.settled();

    const second = await pool.take('run_b');
    expect(second.database).not.toBe(first.database);
    await (await second.connect()).run('create table b_rows as select 2 as n');
    await expect(stale.run('select * from b_rows')).rejects.toThrow(/does not exist/);
    await expect(stale.run('insert into b_rows values (3)')).rejects.toThrow(/does not exist/);
    expect((await stale.runAndReadAll('select database_name from duckdb_databases() order by 1')).getRows()).toEqual([
      [first.database.currentRun],
      ['system'],
      ['temp'],
    ]);
    stale.closeSync();
    pool.release(second);
    await pool.close();
  });

  it("compares the instance's settings after a run that may have run a tenant's SQL, not after one of the platform's alone", async () => {
    const pool = new WorkspacePool({ dataDir, memory: runMemory(128 * 1024 * 1024, 1) }, pino({ level: 'silent' }), 1);
    const enableLogging = async (sql: 'tenant' | 'platform') => {
      const run = await pool.take('run_logs');
      await (await run.connect(sql)).run("call enable_logging(storage = 'memory')");
      pool.release(run);
      await pool.settled();
      return run.database;
    };
    // The platform's statements never do this; done here, it shows which check the pool asked for.
    const unchecked = await enableLogging('platform');
    const next = await pool.take('run_next');
    expect(next.database).toBe(unchecked);
    pool.release(next);
    await pool.settled();
    const checked = await enableLogging('tenant');
    const after = await pool.take('run_after');
    expect(after.database).not.toBe(checked);
    pool.release(after);
    await pool.close();
  });
});
