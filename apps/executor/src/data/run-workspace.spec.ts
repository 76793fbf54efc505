// The run workspace's DuckDB keeps the platform's limits and is locked before any node's SQL runs on it.
import { createHash } from 'node:crypto';
import { readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runMemory } from './run-memory.js';
import { RunWorkspace } from './run-workspace.js';
import { strandedStatements } from './workspace-database.js';
import { computingFor, uninterruptibleSql } from '../../test/support/uninterruptible.js';

const dataDir = join(tmpdir(), `conduit-workspace-spec-${process.pid}`);

afterAll(async () => {
  await rm(dataDir, { recursive: true, force: true });
});

describe('RunWorkspace', () => {
  it('applies memory_limit, threads and temp_directory, then locks the configuration and turns file access off', async () => {
    const workspace = await RunWorkspace.open('run_spec', { dataDir, memory: runMemory(128 * 1024 * 1024, 1) });
    try {
      const connection = await workspace.connect();
      const settings = await connection.runAndReadAll(
        "select current_setting('memory_limit'), current_setting('threads'), current_setting('temp_directory'), " +
          "current_setting('enable_external_access'), current_setting('lock_configuration'), current_setting('autoinstall_known_extensions')",
      );
      expect(settings.getRows()[0]).toEqual(['80.0 MiB', 1n, workspace.database.dir, false, true, false]);
      await expect(connection.run("set memory_limit = '10GB'")).rejects.toThrow(/configuration has been locked/);
      await expect(connection.run('set enable_external_access = true')).rejects.toThrow(
        /configuration has been locked/,
      );
      await expect(connection.run(`copy (select 1) to '${join(dataDir, 'out.csv')}'`)).rejects.toThrow(
        /disabled by configuration/,
      );
      // A sort larger than the memory limit still finishes: it spills into the run's own directory.
      const sorted = await connection.runAndReadAll(
        'select count(*) from (select md5(i::varchar) || md5((i + 1)::varchar) as s from range(1500000) r(i) order by s desc)',
      );
      expect(sorted.getRows()[0]).toEqual([1_500_000n]);
      expect((await readdir(dataDir)).filter((f) => f.endsWith('.csv'))).toEqual([]);
    } finally {
      await workspace.close();
    }
  });

  it('digests the recorded tables exactly, whatever their order, a table recorded again by its last columns', async () => {
    const open = (id: string) => RunWorkspace.open(id, { dataDir, memory: runMemory(128 * 1024 * 1024, 1) });
    const [first, second] = [await open('run_digest_a'), await open('run_digest_b')];
    try {
      const table = (name: string, type: string, column = 'id') => ({ name, columns: [{ name: column, type }] });
      const empty = first.recordedInputsDigest();
      first.setTableInput(table('a', 'INTEGER'));
      first.setTableInput(table('b', 'VARCHAR'));
      second.setTableInput(table('b', 'VARCHAR'));
      second.setTableInput(table('a', 'BIGINT'));
      expect(second.recordedInputsDigest()).not.toEqual(first.recordedInputsDigest());
      second.setTableInput(table('a', 'INTEGER'));
      expect(second.recordedInputsDigest()).toEqual(first.recordedInputsDigest());
      expect(first.recordedInputsDigest()).not.toEqual(empty);
      expect(
        second
          .recordedInputs()
          .map((i) => i.name)
          .sort(),
      ).toEqual(['a', 'b']);
      // Names as long as a run's report clips them, differing past that: different tables.
      const long = 'x'.repeat(300);
      first.setTableInput(table('c', 'INTEGER', `${long}1`));
      second.setTableInput(table('c', 'INTEGER', `${long}2`));
      expect(second.recordedInputsDigest()).not.toEqual(first.recordedInputsDigest());
    } finally {
      await Promise.all([first.close(), second.close()]);
    }
  });

  // An XOR of the tables' digests (as before) is linear: among ~300 one-column tables some ~130 always XOR to zero, and
  // recording them too left the digest as it was.
  it('digests a set of extra tables whose own digests cancel out under XOR as a different set', async () => {
    const table = (i: number) => ({ name: `n${i}`, columns: [{ name: 'c', type: 'INTEGER' }] });
    const digestOf = (i: number) =>
      BigInt(
        `0x${createHash('sha256')
          .update(JSON.stringify(table(i)))
          .digest('hex')}`,
      );
    // Gaussian elimination over GF(2): the first table whose digest the earlier ones' span, with the ones that span it.
    const basis = new Map<number, { vector: bigint; tables: Set<number> }>();
    let cancelling: Set<number> | undefined;
    for (let i = 0; i < 400 && !cancelling; i++) {
      let vector = digestOf(i);
      let tables = new Set([i]);
      for (let bit = 255; bit >= 0 && vector !== 0n; bit--) {
        if (((vector >> BigInt(bit)) & 1n) === 0n) continue;
        const row = basis.get(bit);
        if (!row) {
          basis.set(bit, { vector, tables });
          break;
        }
        vector ^= row.vector;
        tables = new Set(
          [...tables].filter((t) => !row.tables.has(t)).concat([...row.tables].filter((t) => !tables.has(t))),
        );
      }
      if (vector === 0n) cancelling = tables;
    }
    expect([...cancelling!].reduce((x, i) => x ^ digestOf(i), 0n)).toBe(0n);
    const open = (id: string) => RunWorkspace.open(id, { dataDir, memory: runMemory(128 * 1024 * 1024, 1) });
    const [first, second] = [await open('run_digest_c'), await open('run_digest_d')];
    try {
      first.setTableInput({ name: 'base', columns: [{ name: 'id', type: 'BIGINT' }] });
      second.setTableInput({ name: 'base', columns: [{ name: 'id', type: 'BIGINT' }] });
      for (const i of cancelling!) second.setTableInput(table(i));
      expect(second.recordedInputsDigest()).not.toEqual(first.recordedInputsDigest());
    } finally {
      await Promise.all([first.close(), second.close()]);
    }
  });

  it('strands a connection whose statement outlives the grace when the run ends, without blocking the event loop', async () => {
    const told: string[] = [];
    const workspace = await RunWorkspace.open('run_stranded', {
      dataDir,
      memory: runMemory(128 * 1024 * 1024, 1),
      interrupts: { graceMs: 200, onStranded: (runId) => told.push(runId) },
    });
    const connection = await workspace.connect();
    // Seconds of work DuckDB does not interrupt, on a connection its node never gave back.
    let statementEnded = false;
    const running = connection.run(uninterruptibleSql(700)).finally(() => (statementEnded = true));
    running.catch(() => undefined);
    workspace.runs(connection, running);
    await computingFor(200);
    let ticks = 0;
    const ticker = setInterval(() => ticks++, 20);
    try {
      // Closing the connection (or the instance) would wait for the statement, with the event loop held.
      await workspace.close();
      expect(statementEnded).toBe(false);
      expect(ticks).toBeGreaterThan(0);
      expect(told).toEqual(['run_stranded']);
      expect(strandedStatements()).toBe(1);
      await expect(running).rejects.toThrow('Interrupted');
    } finally {
      clearInterval(ticker);
    }
  });
});
