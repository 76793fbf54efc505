import type { Run } from '@conduit/contracts';
import type { ServiceProcess } from '@conduit/testing';
import { call } from './support/client.js';
import {
  create,
  createPipelineAndJob,
  triggerRun,
  uniqueName,
  waitFor,
  waitForRun,
  waitForRunEnd,
} from './support/helpers.js';
import { useTargetStack } from './support/target-stack.js';

// Connector configs cached by version in the executor (issue 18): the run command carries the versions the catalog
// gave the scheduler at the trigger; an executor holding them asks the catalog nothing; the catalog's announcement of
// an update or a delete drops them, so a run claimed afterwards never gets the old config or a deleted connector.
// One executor slot (EXECUTOR_CONCURRENCY=1) lets a run wait in the queue, triggered before a change it must see.
const target = useTargetStack({
  env: { LOG_LEVEL: 'debug', RATE_LIMIT_PER_MINUTE: '100000', EXECUTOR_CONCURRENCY: '1' },
  timeoutMs: 120_000,
});

/** The catalog's resolve calls so far: it logs one debug line per RPC it takes (RpcLogInterceptor). */
function resolveCalls(catalog: ServiceProcess): number {
  return catalog.output
    .join('')
    .split('\n')
    .filter(
      (line) => line.includes('"msg":"rpc received"') && line.includes('"handler":"ConnectorsController.resolve"'),
    ).length;
}

/** Waits for the catalog to have logged `n` resolve calls (its logger writes within 100 ms), then answers the count. */
async function resolveCallsReach(catalog: ServiceProcess, n: number): Promise<number> {
  await waitFor(() => resolveCalls(catalog) >= n, { what: `${n} resolve calls logged`, timeoutMs: 5_000 }).catch(
    () => undefined,
  );
  return resolveCalls(catalog);
}

it('asks the catalog once for a connector across runs, and sees its update and its delete in the next run', async () => {
  const { stack, targetDb } = target;
  const catalog = stack.processes.find((p) => p.name === 'catalog')!;
  await target.db.query('create table cached_items (id integer primary key)');
  await target.db.query('insert into cached_items select g from generate_series(1, 5) g');
  const name = uniqueName('cached');
  const connectorId = (await create(stack, '/v2/connectors', { name, type: 'postgres', config: targetDb.config() })).id;
  const sqlDag = (connector: string, sql: string) => ({
    nodes: [{ id: 'q', type: 'sql', config: { connector_id: connector, sql } }],
    edges: [],
  });
  const { jobId } = await createPipelineAndJob(stack, sqlDag(connectorId, 'select count(*) from cached_items'));
  // A run of another connector that holds the executor's one slot for a while.
  const { jobId: blockerJob } = await createPipelineAndJob(stack, sqlDag(target.connectorId, 'select pg_sleep(1.5)'));
  const runToEnd = async (job: string): Promise<Run> => waitForRunEnd(stack, job, (await triggerRun(stack, job)).id);
  /** Triggers a run of `jobId` while the slot is held, makes `change`, then answers how that run ended. */
  const runQueuedAcross = async (change: () => Promise<void>): Promise<Run> => {
    const blocker = await triggerRun(stack, blockerJob);
    await waitForRun(stack, blockerJob, blocker.id, (r) => r.status === 'running');
    const queued = await triggerRun(stack, jobId);
    await change();
    expect((await getRunStatus(jobId, queued.id)).status).toBe('queued');
    expect((await waitForRunEnd(stack, blockerJob, blocker.id)).status).toBe('succeeded');
    return waitForRunEnd(stack, jobId, queued.id);
  };
  const getRunStatus = async (job: string, run: string) =>
    (await call<Run>(stack, 'GET', `/v2/jobs/${job}/runs/${run}`)).body;

  const before = resolveCalls(catalog);
  expect((await runToEnd(jobId)).status).toBe('succeeded');
  expect(await resolveCallsReach(catalog, before + 1)).toBe(before + 1);
  expect((await runToEnd(jobId)).status).toBe('succeeded');

  // Updated after the run's trigger, before its claim: the run must read the new config (a database that is not).
  const updated = await runQueuedAcross(async () => {
    const res = await call(stack, 'PUT', `/v2/connectors/${connectorId}`, {
      body: { name, config: targetDb.config({ database: 'no_such_database_cache_e2e' }) },
    });
    expect(res.status).toBe(200);
  });
  expect(updated.status).toBe('failed');
  expect(updated.error?.message).toMatch(/no_such_database_cache_e2e/);
  // The second run asked nothing: the calls are the first run's, the blocker's and the updated run's, in that order.
  expect(await resolveCallsReach(catalog, before + 3)).toBe(before + 3);

  const restored = await call(stack, 'PUT', `/v2/connectors/${connectorId}`, {
    body: { name, config: targetDb.config() },
  });
  expect(restored.status).toBe(200);
  expect((await runToEnd(jobId)).status).toBe('succeeded');

  // Deleted after the run's trigger: it fails as a run of a missing connector always has.
  const deleted = await runQueuedAcross(async () => {
    expect((await call(stack, 'DELETE', `/v2/connectors/${connectorId}`)).status).toBe(204);
  });
  expect(deleted.status).toBe('failed');
  expect(deleted.error).toMatchObject({
    node_id: 'q',
    message: `node "q" failed: connector "${connectorId}" does not exist`,
  });
}, 120_000);
