import { existsSync } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type { ServiceProcess } from '@conduit/local-stack';
import { create, createPipelineAndJob, triggerRun, uniqueName, waitFor, waitForRun, waitForRunEnd } from '../support/helpers.js';
import { type FaultStack, startFaultStack } from '../support/fault-stack.js';
import { executorRunning, killHard, liveExecutors } from '../support/run-executions.js';

// R7 (issue 16): the only executor killed with -9 while it copies 1M rows (source -> `select *` -> upsert sink), then
// an executor started again. kill -9 leaves the dead process's spill folder (EXECUTOR_DATA_DIR/executor-<host>-<pid>/,
// apps/executor/src/data/replica-folder.ts); the new executor removes it at start, takes the run over (or the reaper
// fails it) and leaves no run folder behind. Short locks make the takeover take seconds: a run's lease is half
// RUN_LOCK_MS. Silence well past a restart: the new executor takes the run over before the reaper may fail it.
const ENV = { RUN_LOCK_MS: '2000', RUN_STALLED_INTERVAL_MS: '1000', SCHEDULER_REAPER_INTERVAL_MS: '500', SCHEDULER_RUN_SILENCE_MS: '30000' };
const ROWS = 1_000_000;
const COLUMNS = '(id bigint primary key, amount numeric(12,2), created_at timestamptz, name text)';

let fault: FaultStack | undefined;
let db: pg.Client | undefined;
let dataDir: string | undefined;

afterEach(async () => {
  await db?.end();
  db = undefined;
  await fault?.destroy();
  fault = undefined;
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
  dataDir = undefined;
});

it('R7: an executor killed with -9 mid-copy of 1M rows: its spill folder goes at the next start, the run ends, no folder is left', async () => {
  const startedAt = Date.now();
  dataDir = await mkdtemp(join(tmpdir(), 'conduit-fault-spill-'));
  fault = await startFaultStack({ ...ENV, EXECUTOR_DATA_DIR: dataDir });
  const { stack } = fault;
  db = new pg.Client({ connectionString: fault.target.url });
  await db.connect();
  // Built on the server, as bench/runs-copy.mjs does: 1M rows in a few seconds, none through this process.
  await db.query(`create table copy_src ${COLUMNS}`);
  await db.query(`create table copy_out ${COLUMNS}`);
  await db.query(
    `insert into copy_src select i, (i % 100000) / 100.0, timestamptz '2026-01-01' + i * interval '1 second', 'customer ' || i
     from generate_series(1, $1) as i`,
    [ROWS],
  );
  const connector = await create(stack, '/v2/connectors', { name: uniqueName('pg'), type: 'postgres', config: fault.target.config() });
  const dag = {
    nodes: [
      { id: 'extract', type: 'source', config: { connector_id: connector.id, table: 'copy_src' } },
      { id: 'all', type: 'transform', config: { sql: 'select * from extract' } },
      // Upsert on the table's key: a takeover that copies again rewrites the same 1M rows, it adds none.
      { id: 'load', type: 'sink', config: { connector_id: connector.id, table: 'copy_out', mode: 'upsert', key: ['id'] } },
    ],
    edges: [
      { from: 'extract', to: 'all' },
      { from: 'all', to: 'load' },
    ],
  };
  const { jobId } = await createPipelineAndJob(stack, dag);

  const folderOf = (p: ServiceProcess): string => `executor-${hostname().replace(/[^\w.-]/g, '_')}-${p.child.pid}`;
  const [victim] = liveExecutors(stack);
  expect(liveExecutors(stack)).toHaveLength(1);
  const run = await triggerRun(stack, jobId);
  await waitForRun(stack, jobId, run.id, (r) => r.status === 'running');
  await waitFor('the executor to start the run', async () => executorRunning(stack, run.id) === victim, 10_000, 50);

  // The copy is under way: the run's folder in the victim's spill folder holds a transfer file (the source's COPY
  // parts, or the sink's CSV) in its scratch folder.
  const victimFolder = join(dataDir, folderOf(victim!));
  const runFolderPrefix = `${run.id.replace(/[^\w-]/g, '_')}-`;
  const transferFiles = async (): Promise<string[]> => {
    const runFolders = (await readdir(victimFolder).catch(() => [])).filter((name) => name.startsWith(runFolderPrefix));
    const files = await Promise.all(runFolders.map((f) => readdir(join(victimFolder, f, 'scratch')).catch(() => [] as string[])));
    return files.flat();
  };
  await waitFor('a transfer file of the run in the victim\'s spill folder', async () => (await transferFiles()).length > 0, 30_000, 25);
  await killHard(victim!);
  const killedAt = Date.now();

  // kill -9 leaves the folder with the run's files in it, until an executor of this host starts.
  expect((await readdir(victimFolder)).filter((name) => name.startsWith(runFolderPrefix))).toHaveLength(1);
  const restarted = await stack.startService('executor');
  await waitFor('the new executor to remove the dead one\'s spill folder', async () => !existsSync(victimFolder), 15_000, 50);
  await waitFor('the new executor to log the removal', async () => restarted.output.join('').includes('removed the spill folders of dead executors'), 5000, 50);
  const removal = restarted.output.join('').split('\n').find((l) => l.includes('removed the spill folders of dead executors'))!;
  expect(JSON.parse(removal).removed).toEqual([folderOf(victim!)]);

  // Bound: lock expiry (2 s) and a stalled check (1 s) after the new executor is up, then the whole 1M-row copy
  // again (about 15 s alone on this 2-core machine, slower when shared); or the reaper's 30 s of silence.
  const ended = await waitForRunEnd(stack, jobId, run.id, 75_000);
  const endedAfterKillMs = Date.now() - killedAt;
  expect(['succeeded', 'failed']).toContain(ended.status);
  if (ended.status === 'succeeded') {
    expect(ended.attempt).toBeGreaterThanOrEqual(2);
    expect(executorRunning(stack, run.id)).toBe(restarted);
    const { rows } = await db.query<{ n: string; distinct_n: string }>(`select count(*) as n, count(distinct id) as distinct_n from copy_out`);
    expect(rows[0]).toEqual({ n: String(ROWS), distinct_n: String(ROWS) });
    // Every row as the source has it: none lost or altered by the repeat.
    const { rows: diff } = await db.query<{ n: string }>(`select count(*) as n from (select * from copy_src except select * from copy_out) d`);
    expect(diff[0]!.n).toBe('0');
    expect(ended.stats.rows_written).toBe(ROWS);
  } else {
    expect(ended.error).toMatchObject({ code: 'executor_lost' });
  }

  // The run has ended, however: only the live executor's own folder is left, with no run folder in it.
  expect(await readdir(dataDir)).toEqual([folderOf(restarted)]);
  expect(await readdir(join(dataDir, folderOf(restarted)))).toEqual([]);
  const attempts = ended.nodes.map((n) => `${n.id} ${n.status} x${n.attempts}`).join(', ');
  console.log(`R7: ${ended.status} (attempt ${ended.attempt}; ${attempts}) ${endedAfterKillMs} ms after the kill; test ${Date.now() - startedAt} ms`);
}, 150_000);
