// The run engine alone: a DAG through executeRun in the bench process, on a pooled postgres connector and a kept
// DuckDB as an executor has them (ConnectorPools, WorkspacePool), with no queue, scheduler or reports around it.
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConnectorPools } from '@conduit/connectors';
import { DEFAULT_RUN_MEMORY_LIMIT, WorkspacePool, executeRun, parseSize, runMemory } from '@conduit/executor';

/** The run's memory settings an executor gives each run by default (its DuckDB's threads among them). */
export const runMemoryOfExecutor = () => runMemory(parseSize(DEFAULT_RUN_MEMORY_LIMIT));

/**
 * An engine whose runs read from the database at `url` as postgres connector `connectorId`. The bench process must
 * allow private networks (`CONNECTOR_ALLOW_PRIVATE_NETWORKS`): the database is on this machine.
 */
export function engineAlone(url, connectorId) {
  const { hostname, port, pathname, username } = new URL(url);
  const config = {
    host: hostname,
    port: Number(port || 5432),
    database: pathname.slice(1),
    user: username || 'postgres',
  };
  const connectors = new Map([[connectorId, { id: connectorId, type: 'postgres', config }]]);
  const pools = new ConnectorPools();
  const workspace = { dataDir: join(tmpdir(), `conduit-bench-engine-${process.pid}`), memory: runMemoryOfExecutor() };
  const workspaces = new WorkspacePool(workspace, { warn: () => undefined }, 1);
  workspaces.warm();
  let runs = 0;
  return {
    /** Runs `dag` once; throws unless it succeeded. */
    async run(dag) {
      runs += 1;
      const outcome = await executeRun({
        runId: `run_bench_engine_${runs}`,
        tenantId: 'tnt_bench',
        dag,
        connectors,
        workspace,
        workspaces,
        signal: new AbortController().signal,
        log: { write() {} },
        pools,
      });
      if (outcome.status !== 'succeeded')
        throw new Error(`engine run ${outcome.status}: ${JSON.stringify(outcome.error)}`);
    },
    async close() {
      await Promise.all([pools.closeAll(), workspaces.close()]);
      await rm(workspace.dataDir, { recursive: true, force: true });
    },
  };
}
