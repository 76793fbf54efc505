// The duckdb connector opens the tenant's file within the platform's limits (memory, threads, spill), never DuckDB's
// defaults, and SQL cannot raise them: a query needing more memory fails with DuckDB's out-of-memory error.
import { mkdir, mkdtemp, readdir, realpath, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getDriver, type ConnectorDriver, type Row } from '../src/index.js';
import { openDatabase } from '../src/duckdb/database.js';
import type { DuckdbLimits } from '../src/types.js';
import { createDataRoot, type DataRootSandbox } from './support/data-root.js';
import { batchesOf } from './support/driver-batches.js';
import { openTestWorkspace, type TestWorkspace } from './support/run-workspace.js';
import { TEST_TENANT, withTenant } from './support/tenant-driver.js';

const MiB = 1024 * 1024;
const raw = getDriver('duckdb') as Required<ConnectorDriver>;
const driver = withTenant(raw);
const cfg = { path: 'wh/limits.duckdb', schema: 'main' };
/** Far more memory than any limit here, as the attacker's probe: its distinct values alone need gigabytes. */
const HUGE = 'select count(*) as n, max(range) as top from (select distinct range from range(60000000))';
/** Needs some tens of MiB for its hash table: more than 32 MiB of memory, less than that plus a little spill. */
const MEDIUM = 'select count(*) as n, max(range) as top from (select distinct range from range(3000000))';
let sandbox: DataRootSandbox;
let spillRoot: string;

beforeAll(async () => {
  sandbox = await createDataRoot();
  spillRoot = await realpath(await mkdtemp(join(tmpdir(), 'conduit-duckdb-spill-')));
  await driver.write!(cfg, { table: 't', mode: 'overwrite' }, batchesOf([{ a: 1 }]));
});
afterAll(async () => {
  await sandbox.remove();
  await rm(spillRoot, { recursive: true, force: true });
});

async function drain(batches: AsyncIterable<Row[]>): Promise<Row[]> {
  const rows: Row[] = [];
  for await (const batch of batches) rows.push(...batch);
  return rows;
}

const SETTINGS = [
  'memory_limit',
  'threads',
  'temp_directory',
  'max_temp_directory_size',
  'lock_configuration',
  'enable_external_access',
];

/** The settings in force on the connection the driver opens for a call (user SQL may not read them). */
async function settingsOf(mode: 'read' | 'write', limits?: DuckdbLimits): Promise<Record<string, string>> {
  const db = await openDatabase(cfg, { mode, tenantId: TEST_TENANT, limits });
  try {
    const reader = await db.connection.runAndReadAll(
      `select name, value from duckdb_settings() where name in (${SETTINGS.map((s) => `'${s}'`).join(', ')})`,
    );
    return Object.fromEntries(reader.getRows().map(([name, value]) => [String(name), String(value)]));
  } finally {
    await db.close();
  }
}

describe('duckdb connector limits', () => {
  it.each(['read', 'write'] as const)('%s: without limits, bounded defaults, no spill, locked', async (mode) => {
    expect(await settingsOf(mode)).toEqual({
      memory_limit: '128.0 MiB',
      threads: '1',
      temp_directory: '',
      max_temp_directory_size: '0 bytes',
      lock_configuration: 'true',
      enable_external_access: 'false',
    });
  });

  it("takes the caller's limits, and spills in a folder of its own that goes with the file", async () => {
    const settings = await settingsOf('read', {
      memoryLimitBytes: 48 * MiB,
      threads: 2,
      spillDirectory: spillRoot,
      spillLimitBytes: 16 * MiB,
    });
    expect(settings).toMatchObject({ memory_limit: '48.0 MiB', threads: '2', max_temp_directory_size: '16.0 MiB' });
    expect(settings['temp_directory']).toMatch(new RegExp(`^${spillRoot}/duckdb-connector-[0-9a-f-]{36}$`));
    expect(await readdir(spillRoot)).toEqual([]);
  });

  it('cannot be set back by SQL, neither on the connection nor as a sql node statement', async () => {
    const db = await openDatabase(cfg, { mode: 'write', tenantId: TEST_TENANT });
    const attempt = (sql: string) =>
      db.connection.run(sql).then(
        () => 'ran',
        (err: Error) => err.message,
      );
    try {
      for (const sql of [
        "set memory_limit = '16GB'",
        'reset memory_limit',
        'set threads = 8',
        `set temp_directory = '${sandbox.home}'`,
        "set max_temp_directory_size = '100GB'",
        'set lock_configuration = false',
      ]) {
        expect([sql, await attempt(sql)]).toEqual([sql, expect.stringMatching(/the configuration has been locked/)]);
      }
    } finally {
      await db.close();
    }
    await expect(driver.execute!(cfg, "set memory_limit = '16GB'")).rejects.toMatchObject({
      errorClass: 'config_error',
      message: expect.stringMatching(/^the statement is a set statement, which is not allowed/),
    });
  });

  it("fails a query that needs far more memory with DuckDB's out-of-memory error instead of growing", async () => {
    const before = process.memoryUsage().rss;
    await expect(drain(driver.read!(cfg, { query: HUGE }))).rejects.toMatchObject({
      message: expect.stringMatching(/Out of Memory Error/),
    });
    await expect(
      drain(driver.read!(cfg, { query: MEDIUM, duckdbLimits: { memoryLimitBytes: 32 * MiB } })),
    ).rejects.toThrow(/Out of Memory Error/);
    // The probe raised the executor's RSS by 2 GB; the limit keeps it near 128 MiB (allocator slack aside).
    expect(process.memoryUsage().rss - before).toBeLessThan(512 * MiB);
    await expect(
      driver.execute!(cfg, `create table big as ${MEDIUM}`, { duckdbLimits: { memoryLimitBytes: 32 * MiB } }),
    ).rejects.toThrow(/Out of Memory Error/);
  });

  it('with a spill folder, spills up to its cap and removes what it spilled', async () => {
    const limits = { memoryLimitBytes: 32 * MiB, spillDirectory: spillRoot, spillLimitBytes: 256 * MiB };
    expect(await drain(driver.read!(cfg, { query: MEDIUM, duckdbLimits: limits }))).toEqual([
      { n: 3_000_000, top: 2_999_999 },
    ]);
    await expect(
      drain(driver.read!(cfg, { query: MEDIUM, duckdbLimits: { ...limits, spillLimitBytes: 1 * MiB } })),
    ).rejects.toThrow(/Out of Memory Error/);
    expect(await readdir(spillRoot)).toEqual([]);
  });

  it('reach the typed read, the sinks and the sql node', async () => {
    const ws: TestWorkspace = await openTestWorkspace();
    try {
      await expect(
        raw.readIntoTable(
          cfg,
          { query: MEDIUM, tenantId: TEST_TENANT, duckdbLimits: { memoryLimitBytes: 32 * MiB } },
          ws.target('n1'),
        ),
      ).rejects.toThrow(/Out of Memory Error/);
      await ws.connection.run('create table input as select 1 as a');
      const inData = { spillDirectory: sandbox.home };
      const refusal = { errorClass: 'config_error', message: expect.stringMatching(/may not lie under the data root/) };
      await expect(
        raw.writeFromTable(
          cfg,
          { table: 't', mode: 'append', tenantId: TEST_TENANT, duckdbLimits: inData },
          ws.target('input'),
        ),
      ).rejects.toMatchObject(refusal);
      await expect(
        driver.write!(cfg, { table: 't', mode: 'append', duckdbLimits: inData }, batchesOf([{ a: 2 }])),
      ).rejects.toMatchObject(refusal);
      await expect(driver.execute!(cfg, 'delete from t', { duckdbLimits: inData })).rejects.toMatchObject(refusal);
      expect(await ws.scratchEntries()).toEqual([]);
    } finally {
      await ws.close();
    }
  });

  it.each<[string, DuckdbLimits, RegExp]>([
    ['a relative spill folder', { spillDirectory: '.' }, /spillDirectory must be an absolute path/],
    ['a missing spill folder', { spillDirectory: '/nonexistent/conduit' }, /must be an existing folder/],
    ['a tiny memory limit', { memoryLimitBytes: 1024 }, /memoryLimitBytes must be a whole number of at least 8 MiB/],
    ['no threads', { threads: 0 }, /threads must be a whole number of at least 1/],
  ])('refuses %s', async (_what, limits, message) => {
    await expect(drain(driver.read!(cfg, { table: 't', duckdbLimits: limits }))).rejects.toMatchObject({
      errorClass: 'config_error',
      message: expect.stringMatching(message),
    });
  });

  it('refuses a spill folder reached through a link into the data root', async () => {
    const link = join(spillRoot, 'link');
    await mkdir(join(sandbox.home, 'spill'), { recursive: true });
    await symlink(join(sandbox.home, 'spill'), link);
    try {
      await expect(drain(driver.read!(cfg, { table: 't', duckdbLimits: { spillDirectory: link } }))).rejects.toThrow(
        /may not lie under the data root/,
      );
    } finally {
      await rm(link);
    }
  });
});
