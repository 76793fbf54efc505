// A spare workspace is a fresh, locked database handed to one run only, and released runs' folders are removed.
import { readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { runMemory } from './run-memory.js';
import { WorkspaceSpares } from './workspace-spares.js';

const dataDir = join(tmpdir(), `conduit-spares-spec-${process.pid}`);

afterAll(async () => {
  await rm(dataDir, { recursive: true, force: true });
});

describe('WorkspaceSpares', () => {
  it('hands each run a database of its own, locked, and removes the folders of released ones', async () => {
    const spares = new WorkspaceSpares({ dataDir, memory: runMemory(128 * 1024 * 1024, 1) }, pino({ level: 'silent' }));
    spares.warm();
    const first = await spares.take('run_a');
    const second = await spares.take('run_b');
    expect(second.spillDir).not.toBe(first.spillDir);
    const connection = await first.connect();
    await connection.run('create table t as select 1 as n');
    await expect(connection.run("set memory_limit = '10GB'")).rejects.toThrow(/configuration has been locked/);
    const other = await second.connect();
    await expect(other.run('select * from t')).rejects.toThrow(/does not exist/);
    spares.release(first);
    spares.release(second);
    await spares.close();
    expect(await readdir(dataDir)).toEqual([]);
  });
});
