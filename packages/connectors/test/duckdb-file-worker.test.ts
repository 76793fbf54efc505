// The duckdb connector opens a tenant's file only in a file worker (src/duckdb/file-worker/): SQL whose binding
// DuckDB neither bounds by its memory limit nor interrupts (a JSON path of gigabytes, views that expand
// exponentially) costs the worker, never the calling process, and a stopped call ends at once.
import { getDriver, type ConnectorDriver, type Row } from '../src/index.js';
import { workingFor } from '../src/duckdb/file-worker/slots.js';
import { workerDataLimitKiB } from '../src/duckdb/file-worker/workers.js';
import { createDataRoot, type DataRootSandbox } from './support/data-root.js';
import { batchesOf } from './support/driver-batches.js';
import { openTestWorkspace, type TestWorkspace } from './support/run-workspace.js';
import { TEST_TENANT, withTenant } from './support/tenant-driver.js';

const MiB = 1024 * 1024;
const raw = getDriver('duckdb') as Required<ConnectorDriver>;
const driver = withTenant(raw);
const cfg = { path: 'wh/worker.duckdb', schema: 'main' };
/** Binding this folds a 2 GB JSON path: 2 GB and ~30 s of the caller's process before the worker. */
const HUGE_PATH = "select json_extract(a::varchar, repeat('$', 2000000000)) as j from t";
/** Binding this folds 1.7 billion lambda calls: ~15 s of a core, in little memory, past DuckDB's interrupt. */
const SLOW_BIND =
  'select list_sum(list_transform(range(1200), x -> list_sum(list_transform(range(1200), ' +
  'y -> list_sum(list_transform(range(1200), z -> z)))))) as n from t';
let sandbox: DataRootSandbox;
let ws: TestWorkspace;

beforeAll(async () => {
  sandbox = await createDataRoot();
  ws = await openTestWorkspace();
  await driver.write!(cfg, { table: 't', mode: 'overwrite' }, batchesOf([{ a: 1 }]));
});
afterAll(async () => {
  await ws.close();
  await sandbox.remove();
});

async function drain(batches: AsyncIterable<Row[]>): Promise<Row[]> {
  const rows: Row[] = [];
  for await (const batch of batches) rows.push(...batch);
  return rows;
}

/** What `work` settles to (its error, or its value), and how long it took. */
async function timed<T>(work: () => Promise<T>): Promise<{ outcome: unknown; ms: number }> {
  const started = Date.now();
  const outcome = await work().catch((err: unknown) => err);
  return { outcome, ms: Date.now() - started };
}

describe('the duckdb connector in a file worker', () => {
  test("a plan past the worker's memory fails the read, and the caller's memory does not grow", async () => {
    const before = process.memoryUsage().rss;
    const { outcome } = await timed(() =>
      raw.readIntoTable(cfg, { query: HUGE_PATH, tenantId: TEST_TENANT }, ws.target('huge')),
    );
    expect(outcome).toBeInstanceOf(Error);
    expect((outcome as Error).message).toMatch(/memory|allocat/i);
    expect((outcome as { errorClass?: string }).errorClass).toBe('config_error');
    expect(process.memoryUsage().rss - before).toBeLessThan(200 * MiB);
    // The next call gets a worker that works.
    await expect(drain(driver.read!(cfg, { query: 'select a from t' }))).resolves.toEqual([{ a: 1 }]);
  }, 90_000);

  test('a call stopped while DuckDB binds ends within about a second, and the worker doing it is ended', async () => {
    const calls: ((signal: AbortSignal) => Promise<unknown>)[] = [
      (signal: AbortSignal) => drain(driver.read!(cfg, { query: SLOW_BIND, signal })),
      (signal: AbortSignal) => driver.execute!(cfg, `create table slow as ${SLOW_BIND}`, { signal }),
      (signal: AbortSignal) =>
        raw.readIntoTable(cfg, { query: SLOW_BIND, tenantId: TEST_TENANT, signal }, ws.target('slow')),
    ];
    for (const call of calls) {
      const controller = new AbortController();
      const stop = setTimeout(() => controller.abort(new Error('canceled by the test')), 300);
      const { outcome, ms } = await timed(() => call(controller.signal));
      clearTimeout(stop);
      expect((outcome as Error).message).toBe('canceled by the test');
      // The bind alone takes several seconds; the call ends with the abort.
      expect(ms).toBeLessThan(2_000);
    }
    await expect(drain(driver.read!(cfg, { query: 'select a from t' }))).resolves.toEqual([{ a: 1 }]);
    expect(await ws.scratchEntries()).toEqual([]);
  }, 60_000);

  test("one tenant's calls take two workers at most: the next waits, another tenant's goes meanwhile", async () => {
    const other = withTenant(raw, 'tnt_other');
    await other.write!(cfg, { table: 't', mode: 'overwrite' }, batchesOf([{ a: 2 }]));
    const controller = new AbortController();
    const slow = [1, 2].map(() =>
      drain(driver.read!(cfg, { query: SLOW_BIND, signal: controller.signal })).catch((err: Error) => err.message),
    );
    try {
      // Both have their workers (their paths resolve and lock in any order) before the third asks.
      while (workingFor(TEST_TENANT) < 2) await new Promise((resolve) => setTimeout(resolve, 5));
      let third = 'waiting';
      const thirdRead = drain(driver.read!(cfg, { query: 'select a from t' })).then((rows) => {
        third = 'read';
        return rows;
      });
      let slowEnded = false;
      void Promise.all(slow).then(() => (slowEnded = true));
      // The other tenant reads while the two slow binds still run (the cores busy with them, so its time says nothing).
      await expect(drain(other.read!(cfg, { query: 'select a from t' }))).resolves.toEqual([{ a: 2 }]);
      expect(slowEnded).toBe(false);
      expect(third).toBe('waiting');
      controller.abort(new Error('canceled by the test'));
      await expect(thirdRead).resolves.toEqual([{ a: 1 }]);
    } finally {
      controller.abort(new Error('canceled by the test'));
      expect(await Promise.all(slow)).toEqual(['canceled by the test', 'canceled by the test']);
    }
  }, 60_000);

  test("refuses a column type too long to load before the run's DuckDB parses it", async () => {
    await driver.execute!(cfg, "create type many as enum (select 'label_number_' || i from range(10000) r(i))");
    await driver.execute!(cfg, "create table labelled as select 'label_number_1'::many as c");
    const err = (await raw
      .readIntoTable(cfg, { table: 'labelled', tenantId: TEST_TENANT }, ws.target('labelled'))
      .catch((e: unknown) => e)) as Error;
    expect(err.message).toMatch(/column "c" has a type of \d+ characters, more than a run loads \(65536\)/);
    expect((await ws.rows("select count(*)::INTEGER from duckdb_tables() where table_name = 'labelled'"))[0]).toEqual([
      0,
    ]);
    // Cast in the query, the same values load.
    const cast = await raw.readIntoTable(
      cfg,
      { query: 'select c::VARCHAR as c from labelled', tenantId: TEST_TENANT },
      ws.target('labelled_text'),
    );
    expect(cast.columns).toEqual([{ name: 'c', type: 'VARCHAR', source_type: 'VARCHAR' }]);
  });

  test('a row read stopped early leaves the file free: a write goes at once', async () => {
    await driver.execute!(cfg, 'create table many_rows as select range as n from range(100000)');
    for await (const batch of driver.read!(cfg, { table: 'many_rows', batchSize: 10 })) {
      expect(batch).toHaveLength(10);
      break;
    }
    await expect(driver.execute!(cfg, 'insert into t values (2)')).resolves.toEqual({ rows_affected: 1 });
    await driver.execute!(cfg, 'delete from t where a = 2');
  });

  test("a worker's data limit: room for Node and a plan, three times the file's DuckDB memory, 64 MiB a thread", () => {
    expect(workerDataLimitKiB(undefined)).toBe((384 + 3 * 128 + 64) * 1024);
    expect(workerDataLimitKiB({ memoryLimitBytes: 20 * MiB, threads: 2 })).toBe((384 + 3 * 20 + 2 * 64) * 1024);
  });
});
