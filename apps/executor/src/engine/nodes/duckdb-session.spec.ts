import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import duckdb, { type DuckDBConnection, type DuckDBInstance } from '@duckdb/node-api';
import { runMemory } from '../../data/run-memory.js';
import { RunWorkspace } from '../../data/run-workspace.js';
import { DEFAULT_INTERRUPT_GRACE, StrandedStatement } from '../../data/interrupts.js';
import { computingFor, uninterruptibleSql } from '../../../test/support/uninterruptible.js';
import { PLATFORM_SQL, countInputs, seedsRandom, withDuckDB } from './duckdb-session.js';

describe('withDuckDB', () => {
  let instance: DuckDBInstance;
  /** The calls withDuckDB makes of a run's workspace, on a bare instance. */
  let workspace: RunWorkspace;

  beforeAll(async () => {
    instance = await duckdb.DuckDBInstance.create(':memory:');
    workspace = {
      connect: () => instance.connect(),
      runs: () => undefined,
      release: (connection: DuckDBConnection) => connection.closeSync(),
      interrupts: DEFAULT_INTERRUPT_GRACE,
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

  it('gives up on work an interrupt cannot stop once its grace is over, and strands its connection', async () => {
    const cancel = new AbortController();
    let stranded: DuckDBConnection | undefined;
    let running: Promise<unknown> | undefined;
    const graceful = { ...workspace, interrupts: { graceMs: 200 }, strand: (c: DuckDBConnection) => (stranded = c) };
    let statementEnded = false;
    const done = withDuckDB(graceful as unknown as RunWorkspace, cancel.signal, async (connection) => {
      running = connection.run(uninterruptibleSql(700)).finally(() => (statementEnded = true));
      void computingFor(200).then(() => cancel.abort(new Error('canceled')));
      await running;
    });
    await expect(done).rejects.toThrow(StrandedStatement);
    // Given up while the statement runs on: withDuckDB did not wait for it.
    expect(statementEnded).toBe(false);
    expect(stranded).toBeDefined();
    // It ends by itself (interrupted at last), and only then may its connection close.
    await expect(running).rejects.toThrow('Interrupted');
    stranded!.closeSync();
  });
});

describe('withDuckDB, aborted while its connection opens', () => {
  let instance: DuckDBInstance;
  beforeAll(async () => {
    instance = await duckdb.DuckDBInstance.create(':memory:');
  });
  afterAll(() => instance.closeSync());

  it('still interrupts the work, which never completes', async () => {
    const cancel = new AbortController();
    let completed = false;
    let running: Promise<unknown> | undefined;
    const opening = {
      // The abort lands while the connection opens: after withDuckDB's first look at the signal.
      connect: async () => {
        const connection = await instance.connect();
        cancel.abort(new Error('canceled'));
        return connection;
      },
      runs: () => undefined,
      release: (connection: DuckDBConnection) => connection.closeSync(),
      strand: () => undefined,
      interrupts: { graceMs: 200 },
    } as unknown as RunWorkspace;
    const done = withDuckDB(opening, cancel.signal, async (connection) => {
      running = connection.run(uninterruptibleSql(700));
      await running;
      completed = true;
    });
    await expect(done).rejects.toThrow();
    // Stopped by its interrupt (or given up after the grace): seconds of work never ran to their end.
    await running?.catch(() => undefined);
    expect(completed).toBe(false);
  });
});

describe('withDuckDB on a run workspace', () => {
  const dataDir = join(tmpdir(), `conduit-duckdb-session-spec-${process.pid}`);
  let workspace: RunWorkspace;

  beforeEach(async () => {
    workspace = await RunWorkspace.open('run_session_spec', { dataDir, memory: runMemory(128 * 1024 * 1024, 1) });
  });
  afterEach(() => workspace.close());
  afterAll(() => rm(dataDir, { recursive: true, force: true }));

  const openConnections = async (): Promise<bigint> =>
    withDuckDB(workspace, new AbortController().signal, async (c) => {
      const rows = (await c.runAndReadAll('select count from duckdb_connection_count()')).getRows();
      return rows[0]![0] as bigint;
    });

  it("hands the connection a node gave back whole to the run's next node, and closes one that failed or was interrupted", async () => {
    const signal = new AbortController().signal;
    const first = await withDuckDB(workspace, signal, async (c) => c);
    const second = await withDuckDB(workspace, signal, async (c) => c);
    expect(second).toBe(first);

    let failed: DuckDBConnection | undefined;
    await expect(
      withDuckDB(workspace, signal, async (c) => {
        failed = c;
        await c.run('begin transaction');
        throw new Error('the node failed mid-transaction');
      }),
    ).rejects.toThrow('mid-transaction');
    expect(failed).toBe(first);
    await expect(failed!.run('select 1')).rejects.toThrow();

    // Aborted while its work ends normally: an interrupt may be on its way to the connection.
    const cancel = new AbortController();
    let interrupted: DuckDBConnection | undefined;
    await withDuckDB(workspace, cancel.signal, async (c) => {
      interrupted = c;
      cancel.abort(new Error('canceled'));
    });
    const next = await withDuckDB(workspace, signal, async (c) => c);
    expect(next).not.toBe(interrupted);
    expect(next).not.toBe(failed);
    // The platform's connection and the one counting: none of the closed ones stays open.
    expect(await openConnections()).toBe(2n);
  });

  it('closes a connection whose tenant SQL may have seeded its random generator, though its node ended well', async () => {
    const signal = new AbortController().signal;
    const sql = 'select setseed(0.5) as seeded';
    expect(seedsRandom(sql)).toBe(true);
    expect(seedsRandom('select random() as r -- no SetSeed here, but a mention counts')).toBe(true);
    expect(seedsRandom('select random() as r')).toBe(false);
    const seeded = await withDuckDB(
      workspace,
      signal,
      async (c) => {
        await c.run(sql);
        return c;
      },
      { keep: !seedsRandom(sql) },
    );
    await expect(seeded.run('select 1')).rejects.toThrow();
    expect(await withDuckDB(workspace, signal, async (c) => c)).not.toBe(seeded);
  });

  it("marks the run as one that ran a tenant's SQL unless every node said its connection runs the platform's alone", async () => {
    const signal = new AbortController().signal;
    await withDuckDB(workspace, signal, async (c) => c.run('create table loaded as select 1 as n'), PLATFORM_SQL);
    expect(workspace.ranTenantSql).toBe(false);
    // Marked when the connection is handed out, before any of the node's SQL runs: a node that fails is counted too.
    await expect(
      withDuckDB(workspace, signal, async () => {
        expect(workspace.ranTenantSql).toBe(true);
        throw new Error('the SQL failed');
      }),
    ).rejects.toThrow('the SQL failed');
    await withDuckDB(workspace, signal, async (c) => c.run('select 1'), PLATFORM_SQL);
    expect(workspace.ranTenantSql).toBe(true);
  });

  it('closes the connections kept for the next node when the run ends', async () => {
    const signal = new AbortController().signal;
    const kept = await withDuckDB(workspace, signal, async (c) => c);
    await workspace.close();
    await expect(kept.run('select 1')).rejects.toThrow();
    await expect(workspace.connect()).rejects.toThrow(/closed/);
  });

  it('counts an input unless DuckDB already answered its rows when this execution made it', async () => {
    const signal = new AbortController().signal;
    await withDuckDB(workspace, signal, async (c) => {
      await c.run('create table made as select * from range(3)');
      await c.run('create table recorded as select * from range(2)');
    });
    // A recorded figure is taken as it is: 7, not the table's 2, shows that it was not counted again.
    workspace.setTableRows('recorded', 7);
    expect(await withDuckDB(workspace, signal, (c) => countInputs(workspace, c, ['made', 'recorded']))).toBe(10);
  });
});
