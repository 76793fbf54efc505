// The engine with the executor's connection pools: nodes and runs share a connector's connections, never its state.
import { randomUUID } from 'node:crypto';
import { ConnectorPools } from '@conduit/connectors';
import { CONNECTOR_ID, nodeOf, runDag } from './support/engine-harness.js';
import { useSuiteSchema } from './support/postgres.js';
import { dagNodes, linearDag, waitFor } from '@conduit/testing';

const suite = useSuiteSchema(async (db) => {
  await db.query(`create table seen (run text, node text, pid int, temp_gone boolean, timeout text)`);
});
const { schema, config } = suite;
let pools: ConnectorPools;

const { sql } = dagNodes(CONNECTOR_ID);

beforeEach(() => {
  pools = new ConnectorPools({ max: 4, idleMs: 60_000 });
});
afterEach(async () => {
  await pools.closeAll();
});

const record = (run: string, node: string) =>
  sql(
    node,
    `insert into seen select '${run}', '${node}', pg_backend_pid(), to_regclass('pg_temp.run_scratch') is null,
     current_setting('statement_timeout')`,
  );

async function seen(run: string): Promise<{ node: string; pid: number; temp_gone: boolean; timeout: string }[]> {
  const { rows } = await suite.db.query(
    `select node, pid, temp_gone, timeout from ${schema}.seen where run = $1 order by node`,
    [run],
  );
  return rows as { node: string; pid: number; temp_gone: boolean; timeout: string }[];
}

describe('connection reuse', () => {
  it('runs a chain of sql nodes on one connection, and the next run on it without the first run`s state', async () => {
    const first = await runDag(
      linearDag(
        record('r1', 'a'),
        sql('b', `set statement_timeout = 4321; create temporary table run_scratch (a int)`),
        record('r1', 'c'),
      ),
      config,
      { pools },
    );
    expect(first.outcome.status).toBe('succeeded');
    const [a, c] = await seen('r1');
    expect(c!.pid).toBe(a!.pid);
    // Each node starts clean, even within a run: settings and temporary tables end with the node.
    expect(c).toMatchObject({ temp_gone: true, timeout: '0' });

    const second = await runDag(linearDag(record('r2', 'a')), config, { pools });
    expect(second.outcome.status).toBe('succeeded');
    expect(await seen('r2')).toEqual([{ node: 'a', pid: a!.pid, temp_gone: true, timeout: '0' }]);
  });

  it('gives another tenant its own connections', async () => {
    await runDag(linearDag(record('t1', 'a')), config, { pools });
    await runDag(linearDag(record('t2', 'a')), config, { pools, tenantId: 'tnt_other' });
    const [mine] = await seen('t1');
    const [theirs] = await seen('t2');
    expect(theirs!.pid).not.toBe(mine!.pid);
  });

  it('a cancel stops the pooled statement on the server', async () => {
    const marker = `m${randomUUID().replace(/-/g, '')}`;
    const controller = new AbortController();
    const running = async () => {
      const { rows } = await suite.db.query(
        `select count(*)::int as n from pg_stat_activity where state = 'active' and query like $1 and pid <> pg_backend_pid()`,
        [`%${marker}%`],
      );
      return (rows[0] as { n: number }).n > 0;
    };
    const run = runDag(linearDag(sql('slow', `select pg_sleep(60) /* ${marker} */`)), config, {
      pools,
      signal: controller.signal,
    });
    await waitFor(running, { what: 'the statement to start', timeoutMs: 5000 });
    controller.abort();
    const done = await run;
    expect(done.outcome.status).toBe('canceled');
    expect(nodeOf(done, 'slow').status).toBe('canceled');
    await waitFor(async () => !(await running()), { what: 'the server to stop the statement', timeoutMs: 5000 });
  });
});
