import { existsSync } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ServiceProcess } from '@conduit/testing';
import { createPipelineAndJob, triggerRun, waitFor, waitForRun, waitForRunEnd } from './support/helpers.js';
import { useTargetStack } from './support/target-stack.js';
import { executorRunning as startedBy, liveExecutors } from './support/run-executions.js';

// api.md, Run: "A run whose executor dies is picked up again, never left `running` for ever." Two executors; the one
// running the run is killed with SIGKILL (no goodbye, no lock release). Short run locks make the takeover take
// seconds: a lock not renewed for RUN_LOCK_MS is stalled, and the surviving executor's stalled check takes the run.
const RUN_LOCK_MS = 2000;
let dataDir: string | undefined;
const target = useTargetStack({
  env: async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'conduit-e2e-spill-'));
    return {
      EXECUTOR_DATA_DIR: dataDir,
      RUN_LOCK_MS: String(RUN_LOCK_MS),
      RUN_STALLED_INTERVAL_MS: '1000',
      SCHEDULER_REAPER_INTERVAL_MS: '1000',
      SCHEDULER_RUN_SILENCE_MS: '5000',
      RATE_LIMIT_PER_MINUTE: '100000',
    };
  },
  timeoutMs: 90_000,
});

beforeAll(async () => {
  // A second executor: the run's is killed, the other takes the run over.
  await target.stack.startService('executor');
}, 30_000);

afterAll(async () => {
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

/** An executor process's own folder of run spill folders (apps/executor/src/data/replica-folder.ts). */
const spillFolderOf = (p: ServiceProcess): string =>
  join(dataDir!, `executor-${hostname().replace(/[^\w.-]/g, '_')}-${p.child.pid}`);

const executors = (): ServiceProcess[] => liveExecutors(target.stack);
const executorRunning = (runId: string): ServiceProcess | undefined => startedBy(target.stack, runId);

/** The folder of the run's database: an executor opens one ahead at start, and the run takes it (workspace-pool.ts). */
const FOLDERS_WHILE_RUNNING = 1;

describe('an executor killed mid-run', () => {
  it('the run does not stay running: the other executor takes it over and it succeeds, with no duplicate rows', async () => {
    expect(executors()).toHaveLength(2);
    await target.db.query(`create table crash_out (n integer primary key)`);
    const dag = {
      nodes: [
        // Four seconds in PostgreSQL before the first row: time to kill the executor while the run is in this node.
        {
          id: 'slow',
          type: 'source',
          config: {
            connector_id: target.connectorId,
            query: 'select i as n from generate_series(1, 1000) as i, (select pg_sleep(4)) as s',
          },
        },
        {
          id: 'load',
          type: 'sink',
          config: { connector_id: target.connectorId, table: 'crash_out', mode: 'overwrite' },
        },
      ],
      edges: [{ from: 'slow', to: 'load' }],
    };
    const { jobId } = await createPipelineAndJob(target.stack, dag);
    const queued = await triggerRun(target.stack, jobId);
    await waitForRun(target.stack, jobId, queued.id, (r) => r.status === 'running');
    let victim: ServiceProcess | undefined;
    await waitFor(async () => (victim = executorRunning(queued.id)) !== undefined, {
      what: 'the executor of the run to log it',
      timeoutMs: 5000,
      intervalMs: 50,
    });
    const survivor = executors().find((p) => p !== victim)!;

    // While the run is in its slow node, its database's folder is there.
    await waitFor(async () => (await readdir(spillFolderOf(victim!))).length === FOLDERS_WHILE_RUNNING, {
      what: "the folder of the run's database",
      timeoutMs: 5000,
      intervalMs: 50,
    });
    const killedAt = Date.now();
    const exited = new Promise((r) => victim!.child.once('exit', r));
    process.kill(victim!.child.pid!, 'SIGKILL');
    await exited;

    // kill -9 leaves the victim's spill (the run's folder) behind, until an executor of this host starts.
    expect(await readdir(spillFolderOf(victim!))).toHaveLength(FOLDERS_WHILE_RUNNING);
    const restarted = await target.stack.startService('executor');
    await waitFor(async () => !existsSync(spillFolderOf(victim!)), {
      what: "the restarted executor to remove the dead one's spill folder",
      timeoutMs: 10_000,
      intervalMs: 50,
    });
    expect(existsSync(spillFolderOf(restarted))).toBe(true);

    const run = await waitForRunEnd(target.stack, jobId, queued.id, 60_000);
    const tookMs = Date.now() - killedAt;
    expect({ status: run.status, error: run.error }).toEqual({ status: 'succeeded', error: null });
    expect(run.attempt).toBeGreaterThanOrEqual(2);
    expect([survivor, restarted].some((p) => p.output.join('').includes(queued.id))).toBe(true);
    // Lock expiry, one stalled check, then the 4 s source again: well under half a minute.
    expect(tookMs).toBeLessThan(30_000);
    const { rows } = await target.db.query<{ n: string; distinct_n: string }>(
      `select count(*) as n, count(distinct n) as distinct_n from crash_out`,
    );
    expect(rows[0]).toEqual({ n: '1000', distinct_n: '1000' });
    expect(run.stats.rows_written).toBe(1000);
    // The run has ended: its folders went with it, whichever executor finished it; each executor keeps only its
    // databases for the next runs (one here: one run at a time), their scratch folders empty.
    for (const p of executors()) {
      const left = await readdir(spillFolderOf(p));
      expect(left.length).toBeLessThanOrEqual(1);
      for (const name of left) {
        expect(name).toMatch(/^db-/);
        expect(await readdir(join(spillFolderOf(p), name))).toEqual(['scratch']);
        expect(await readdir(join(spillFolderOf(p), name, 'scratch'))).toEqual([]);
      }
    }
  });
});
