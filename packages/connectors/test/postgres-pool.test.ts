import { randomUUID } from 'node:crypto';
import { escapeIdentifier } from 'pg';
import { getDriver, type ConnectorDriver } from '../src/index.js';
import { usePgSandbox } from './support/pg-sandbox.js';
import { allowPrivateNetworks } from './support/network-policy.js';
import { usePools } from './support/pool-fixture.js';
import { describePoolLifecycle } from './support/pool-lifecycle.js';
import { expectAbortStopsStatement } from './support/statement-abort.js';

// The test servers listen on this machine, which the default network policy refuses.
allowPrivateNetworks();

const driver = getDriver('postgres') as Required<ConnectorDriver>;
const sandbox = usePgSandbox();
const fixture = usePools(driver, sandbox);
const { pools, scope, readOne, connectionId, waitClosed } = fixture;

describe('postgres connection pool', () => {
  it('reuses one connection across calls (statements, reads) of a connector', async () => {
    const first = await connectionId();
    await driver.execute(sandbox.config, 'select 1', { tenantId: 't1', pool: scope() });
    expect(await connectionId()).toBe(first);
    expect(pools().size).toBe(1);
  });

  it('resets session state before reuse: settings, search_path and temporary tables never reach the next call', async () => {
    const pid = await connectionId();
    await driver.execute(
      sandbox.config,
      `set search_path to pg_catalog; set statement_timeout = 1234; set application_name = 'leaked';
       create temporary table leaked_temp (a int)`,
      { tenantId: 't1', pool: scope() },
    );
    const after = await readOne(
      `select pg_backend_pid() as pid, current_setting('statement_timeout') as timeout,
              current_setting('search_path') as search_path, current_setting('application_name') as app,
              to_regclass('pg_temp.leaked_temp') is null as temp_gone`,
    );
    expect(after).toEqual({
      pid,
      timeout: '0',
      search_path: `"${sandbox.schema}", public`,
      app: 'conduit',
      temp_gone: true,
    });
  });

  it('keeps the configured schema first on a reused connection, whatever its name', async () => {
    const odd = `odd "schema\\ ${randomUUID().slice(0, 8)}`;
    await sandbox.admin.query(`create schema ${escapeIdentifier(odd)}`);
    try {
      const config = { ...sandbox.config, schema: odd };
      const first = await readOne('select pg_backend_pid() as pid, current_schema() as schema', { config });
      const again = await readOne('select pg_backend_pid() as pid, current_schema() as schema', { config });
      expect(first).toEqual({ pid: first['pid'], schema: odd });
      expect(again).toEqual(first);
    } finally {
      await sandbox.admin.query(`drop schema ${escapeIdentifier(odd)}`);
    }
  });

  it('closes a connection left in a failed transaction instead of reusing it', async () => {
    const pid = await connectionId();
    await expect(
      driver.execute(sandbox.config, 'begin; select 1/0', { tenantId: 't1', pool: scope() }),
    ).rejects.toMatchObject({ name: 'ConnectorError' });
    expect(await connectionId()).not.toBe(pid);
    await waitClosed(pid, 'the failed connection to be closed');
  });

  it('cancels a pooled statement on the server and never reuses its connection', async () => {
    const pid = await connectionId();
    const marker = `m${randomUUID().replace(/-/g, '')}`;
    await expectAbortStopsStatement(
      (signal) =>
        driver.execute(sandbox.config, `select pg_sleep(60) /* ${marker} */`, {
          tenantId: 't1',
          pool: scope(),
          signal,
        }),
      () => sandbox.sessionShows(marker),
    );
    await waitClosed(pid, 'the cancelled connection to be closed');
    expect(await connectionId()).not.toBe(pid);
  });

  it('opens at most `max` connections: a further caller waits for one to come back', async () => {
    const reads = Array.from({ length: 3 }, () =>
      readOne('select pg_backend_pid() as pid, pg_sleep(0.3)::text as slept'),
    );
    const pids = (await Promise.all(reads)).map((row) => row['pid']);
    expect(pids).toHaveLength(3);
    expect(new Set(pids).size).toBe(2);
  });

  it('a caller waiting for a connection stops waiting when its signal aborts', async () => {
    const busy = [1, 2].map(() =>
      driver.execute(sandbox.config, 'select pg_sleep(0.5)', { tenantId: 't1', pool: scope() }),
    );
    const controller = new AbortController();
    const waiting = driver.execute(sandbox.config, 'select 1', {
      tenantId: 't1',
      pool: scope(),
      signal: controller.signal,
    });
    controller.abort();
    await expect(waiting).rejects.toMatchObject({ name: 'AbortError' });
    await Promise.all(busy);
  });

  describePoolLifecycle(sandbox, fixture);
});
