import { existsSync } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ServiceProcess, Stack } from '@conduit/testing';
import { createPipelineAndJob, triggerRun, waitFor, waitForRun, waitForRunEnd } from '../support/helpers.js';
import { type FaultStack, startFaultStack } from '../support/fault-stack.js';
import { executorRunning, killHard, liveExecutors } from '../support/run-executions.js';

// R7 (issue 16): the only executor killed with -9 while it copies 1M rows (source -> `select *` -> upsert sink), then
// an executor started again. kill -9 leaves the dead process's spill folder (EXECUTOR_DATA_DIR/executor-<host>-<pid>/,
// apps/executor/src/data/replica-folder.ts); the new executor removes it at start, and the run ends, taken over or
// failed by the reaper, with no run folder left. Short locks make a takeover take seconds: a run's lease is half
// RUN_LOCK_MS. Each test starts its own stack on its own PostgreSQL and Redis (fault-stack.ts).
const SHORT_LOCKS = { RUN_LOCK_MS: '2000', RUN_STALLED_INTERVAL_MS: '1000', SCHEDULER_REAPER_INTERVAL_MS: '500' };
const ROWS = 1_000_000;
const COLUMNS = '(id bigint primary key, amount numeric(12,2), created_at timestamptz, name text)';
const REMOVED_LOG = 'removed the spill folders of dead executors';

let fault: FaultStack | undefined;
let dataDir: string | undefined;

afterEach(async () => {
  await fault?.destroy();
  fault = undefined;
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
  dataDir = undefined;
});

/** An executor's folder of run spill folders under EXECUTOR_DATA_DIR. */
const folderOf = (p: ServiceProcess): string => `executor-${hostname().replace(/[^\w.-]/g, '_')}-${p.child.pid}`;

interface KilledCopy {
  stack: Stack;
  jobId: string;
  runId: string;
  victimFolder: string;
  killedAt: number;
}

/** A stack whose only executor is killed -9 in the middle of a 1M-row copy, once the run's files are on its disk. */
async function killMidCopy(env: Record<string, string>): Promise<KilledCopy> {
  dataDir = await mkdtemp(join(tmpdir(), 'conduit-fault-spill-'));
  fault = await startFaultStack({ ...SHORT_LOCKS, ...env, EXECUTOR_DATA_DIR: dataDir });
  const { stack, db, connectorId } = fault;
  // Built on the server, as bench/runs-copy.mjs does: 1M rows in a few seconds, none through this process.
  await db.query(`create table copy_src ${COLUMNS}`);
  await db.query(`create table copy_out ${COLUMNS}`);
  await db.query(
    `insert into copy_src select i, (i % 100000) / 100.0, timestamptz '2026-01-01' + i * interval '1 second', 'customer ' || i
     from generate_series(1, $1) as i`,
    [ROWS],
  );
  const dag = {
    nodes: [
      { id: 'extract', type: 'source', config: { connector_id: connectorId, table: 'copy_src' } },
      { id: 'all', type: 'transform', config: { sql: 'select * from extract' } },
      // Upsert on the table's key: a takeover that copies again rewrites the same 1M rows, it adds none.
      {
        id: 'load',
        type: 'sink',
        config: { connector_id: connectorId, table: 'copy_out', mode: 'upsert', key: ['id'] },
      },
    ],
    edges: [
      { from: 'extract', to: 'all' },
      { from: 'all', to: 'load' },
    ],
  };
  const { jobId } = await createPipelineAndJob(stack, dag);

  expect(liveExecutors(stack)).toHaveLength(1);
  const [victim] = liveExecutors(stack);
  const run = await triggerRun(stack, jobId);
  await waitForRun(stack, jobId, run.id, (r) => r.status === 'running');
  await waitFor(async () => executorRunning(stack, run.id) === victim, {
    what: 'the executor to start the run',
    timeoutMs: 10_000,
    intervalMs: 50,
  });

  // The copy is under way: the victim's spill folder holds a transfer file of the run (the source's COPY parts in its
  // scratch folder, or a CSV hand-off in its run folder). An executor keeps its runs' databases from run to run
  // (workspace-pool.ts), each in a folder `db-...` holding `scratch/<run>/` and `run-<run>/` while a run uses it.
  const victimFolder = join(dataDir, folderOf(victim!));
  const filesUnder = async (dir: string, depth: number): Promise<string[]> => {
    const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
    const nested = await Promise.all(
      entries.map(async (e) =>
        e.isDirectory() ? (depth > 0 ? filesUnder(join(dir, e.name), depth - 1) : []) : [join(dir, e.name)],
      ),
    );
    return nested.flat();
  };
  const transferFiles = async (): Promise<string[]> =>
    (await filesUnder(victimFolder, 3)).filter((f) => /\/(scratch\/[^/]+|run-[^/]+)\/[^/]+$/.test(f));
  await waitFor(async () => (await transferFiles()).length > 0, {
    what: "a transfer file of the run in the victim's spill folder",
    timeoutMs: 30_000,
    intervalMs: 25,
  });
  await killHard(victim!);
  const killedAt = Date.now();

  // kill -9 leaves the folder with the run's files in it, until an executor of this host starts.
  expect((await transferFiles()).length).toBeGreaterThan(0);
  return { stack, jobId, runId: run.id, victimFolder, killedAt };
}

/** Starts an executor again and checks that it removed the dead one's spill folder at start, and said so. */
async function restartExecutor(stack: Stack, victimFolder: string): Promise<ServiceProcess> {
  const restarted = await stack.startService('executor');
  await waitFor(async () => !existsSync(victimFolder), {
    what: "the new executor to remove the dead one's spill folder",
    timeoutMs: 15_000,
    intervalMs: 50,
  });
  await waitFor(async () => restarted.output.join('').includes(REMOVED_LOG), {
    what: 'the new executor to log the removal',
    timeoutMs: 5000,
    intervalMs: 50,
  });
  const removal = restarted.output
    .join('')
    .split('\n')
    .find((l) => l.includes(REMOVED_LOG))!;
  expect((JSON.parse(removal) as { removed: string[] }).removed).toEqual([victimFolder.split('/').pop()]);
  return restarted;
}

/** The run has ended, however: only the live executor's own folder is left, with no run folder in it. */
async function expectOnlyOwnEmptyFolder(live: ServiceProcess): Promise<void> {
  expect(await readdir(dataDir!)).toEqual([folderOf(live)]);
  // No run's folder: at most the databases the executor keeps for its next runs, each with an empty scratch folder.
  const left = await readdir(join(dataDir!, folderOf(live)));
  expect(left.length).toBeLessThanOrEqual(2);
  for (const name of left) {
    expect(name).toMatch(/^db-/);
    expect(await readdir(join(dataDir!, folderOf(live), name))).toEqual(['scratch']);
    expect(await readdir(join(dataDir!, folderOf(live), name, 'scratch'))).toEqual([]);
  }
}

it('R7: killed -9 mid-copy of 1M rows, then started again: the dead folder goes at start, the run is taken over, no folder is left', async () => {
  const startedAt = Date.now();
  // Silence well past a restart: the new executor takes the run over before the reaper may fail it.
  const { stack, jobId, runId, victimFolder, killedAt } = await killMidCopy({ SCHEDULER_RUN_SILENCE_MS: '30000' });
  const restarted = await restartExecutor(stack, victimFolder);

  // Bound, 60 s after the kill: the restart (3-5 s), the lock's expiry (2 s) and a stalled check (1 s), then the
  // whole 1M-row copy again (about 8 s here when the machine is shared); about 11 s measured, so 5x headroom.
  const ended = await waitForRunEnd(stack, jobId, runId, 60_000);
  const endedAfterKillMs = Date.now() - killedAt;
  expect({ status: ended.status, error: ended.error }).toEqual({ status: 'succeeded', error: null });
  expect(ended.attempt).toBeGreaterThanOrEqual(2);
  expect(executorRunning(stack, runId)).toBe(restarted);
  // The repeat is harmless and counted: exactly the source's rows, each once, none altered, 1M written by the run.
  const { rows } = await fault!.db.query<{ n: string; distinct_n: string }>(
    `select count(*) as n, count(distinct id) as distinct_n from copy_out`,
  );
  expect(rows[0]).toEqual({ n: String(ROWS), distinct_n: String(ROWS) });
  const { rows: diff } = await fault!.db.query<{ n: string }>(
    `select count(*) as n from (select * from copy_src except select * from copy_out) d`,
  );
  expect(diff[0]!.n).toBe('0');
  expect(ended.stats.rows_written).toBe(ROWS);
  await expectOnlyOwnEmptyFolder(restarted);
  const attempts = ended.nodes.map((n) => `${n.id} x${n.attempts}`).join(', ');
  console.log(
    `R7 takeover: succeeded ${endedAfterKillMs} ms after the kill (run attempt ${ended.attempt}; ${attempts}); test ${Date.now() - startedAt} ms`,
  );
}, 150_000);

it('R7: killed -9 mid-copy of 1M rows, failed by the reaper before an executor returns: the next one removes the folder and runs nothing', async () => {
  const startedAt = Date.now();
  // No executor is left: once the lease has lapsed and the run has been silent 3 s, the reaper fails it.
  const { stack, jobId, runId, victimFolder, killedAt } = await killMidCopy({ SCHEDULER_RUN_SILENCE_MS: '3000' });
  // Bound: the silence (3 s) past the kill plus a reaper pass (0.5 s); 20 s leaves room on a shared machine.
  const failed = await waitForRunEnd(stack, jobId, runId, 20_000);
  const endedAfterKillMs = Date.now() - killedAt;
  expect(failed).toMatchObject({ status: 'failed', error: { code: 'executor_lost' } });
  // Until an executor starts, nothing removes the dead one's folder.
  expect(existsSync(victimFolder)).toBe(true);

  const restarted = await restartExecutor(stack, victimFolder);
  // Its stalled check takes the queue job back; the claim is refused and nothing runs, so no run folder is made.
  await waitFor(async () => restarted.output.join('').includes('run claim refused: nothing runs'), {
    what: 'the new executor to be refused the claim',
    timeoutMs: 15_000,
    intervalMs: 100,
  });
  expect(restarted.output.join('')).not.toContain('"msg":"run started"');
  const { rows } = await fault!.db.query<{ n: string }>(`select count(*) as n from copy_out`);
  expect(rows[0]!.n).toBe('0');
  expect(await waitForRunEnd(stack, jobId, runId)).toMatchObject({ status: 'failed', finished_at: failed.finished_at });
  await expectOnlyOwnEmptyFolder(restarted);
  console.log(`R7 reaped: failed ${endedAfterKillMs} ms after the kill; test ${Date.now() - startedAt} ms`);
}, 150_000);
