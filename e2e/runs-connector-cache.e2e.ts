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
// And the pipeline snapshots the scheduler holds while the tenant's catalog generation stays (held-snapshots.ts): a
// trigger after any change of the tenant's pipelines or connectors takes them as changed.
const target = useTargetStack({
  // Snapshots held for 10 minutes: what a test counts then never depends on how slow the machine is.
  env: {
    LOG_LEVEL: 'debug',
    RATE_LIMIT_PER_MINUTE: '100000',
    EXECUTOR_CONCURRENCY: '1',
    SCHEDULER_SNAPSHOT_HOLD_MS: '600000',
  },
  timeoutMs: 120_000,
});

/** The catalog's calls of a handler so far: it logs one debug line per RPC it takes (RpcLogInterceptor). */
function catalogCalls(catalog: ServiceProcess, handler: string): number {
  return catalog.output
    .join('')
    .split('\n')
    .filter((line) => line.includes('"msg":"rpc received"') && line.includes(`"handler":"${handler}"`)).length;
}

const resolveCalls = (catalog: ServiceProcess): number => catalogCalls(catalog, 'ConnectorsController.resolve');

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

it("triggers take the pipeline held by the scheduler until the tenant's pipelines or connectors change", async () => {
  const { stack, targetDb } = target;
  const catalog = stack.processes.find((p) => p.name === 'catalog')!;
  const snapshotCalls = () => catalogCalls(catalog, 'PipelinesController.snapshot');
  /** The snapshot calls logged once the catalog's logger had time to write (within 100 ms), counted from `from`. */
  const snapshotCallsSince = async (from: number, expected: number): Promise<number> => {
    await waitFor(() => snapshotCalls() >= from + expected, { what: 'snapshot calls logged', timeoutMs: 5_000 }).catch(
      () => undefined,
    );
    return snapshotCalls() - from;
  };
  const name = uniqueName('held');
  const connectorId = (await create(stack, '/v2/connectors', { name, type: 'postgres', config: targetDb.config() })).id;
  const sqlDag = (sql: string) => ({
    nodes: [{ id: 'q', type: 'sql', config: { connector_id: connectorId, sql } }],
    edges: [],
  });
  const { jobId, pipelineId } = await createPipelineAndJob(stack, sqlDag('select 1 as one'));
  const runToEnd = async (): Promise<Run> => waitForRunEnd(stack, jobId, (await triggerRun(stack, jobId)).id);

  const first = await runToEnd();
  expect(first).toMatchObject({ status: 'succeeded', pipeline_version: 1 });
  const held = snapshotCalls();
  for (let i = 0; i < 3; i += 1) expect((await runToEnd()).status).toBe('succeeded');
  // Nothing changed: no trigger asked the catalog.
  expect(await snapshotCallsSince(held, 0)).toBe(0);

  // A new version of the pipeline: the next trigger takes it, and asks the catalog once.
  const put = await call(stack, 'PUT', `/v2/pipelines/${pipelineId}`, {
    body: { name: uniqueName('held-pipeline'), dag: sqlDag('select 2 as two') },
  });
  expect(put.status).toBe(200);
  const second = await runToEnd();
  expect(second).toMatchObject({ status: 'succeeded', pipeline_version: 2 });
  expect(await snapshotCallsSince(held, 1)).toBe(1);

  // A change of another pipeline of the tenant counts too (the generation is the tenant's): one more ask.
  const other = await create<{ id: string }>(stack, '/v2/pipelines', {
    name: uniqueName('held-other'),
    dag: sqlDag('select 3'),
  });
  const otherPut = await call(stack, 'PUT', `/v2/pipelines/${other.id}`, {
    body: { name: uniqueName('held-other'), dag: sqlDag('select 4') },
  });
  expect(otherPut.status).toBe(200);
  expect((await runToEnd()).status).toBe('succeeded');
  expect((await runToEnd()).status).toBe('succeeded');
  expect(await snapshotCallsSince(held, 2)).toBe(2);

  // A deleted connector makes the very next trigger a 409 pipeline_invalid, with no run made.
  const runsBefore = (await call<{ data: Run[] }>(stack, 'GET', `/v2/jobs/${jobId}/runs`)).body.data.length;
  expect((await call(stack, 'DELETE', `/v2/connectors/${connectorId}`)).status).toBe(204);
  const refused = await call(stack, 'POST', `/v2/jobs/${jobId}/run`);
  expect(refused.status).toBe(409);
  expect((refused.body as { code: string }).code).toBe('pipeline_invalid');
  expect((await call<{ data: Run[] }>(stack, 'GET', `/v2/jobs/${jobId}/runs`)).body.data).toHaveLength(runsBefore);
}, 120_000);
