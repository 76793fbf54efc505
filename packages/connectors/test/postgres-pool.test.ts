import { randomUUID } from 'node:crypto';
import { escapeIdentifier } from 'pg';
import { getDriver, type ConnectorDriver } from '../src/index.js';
import { waitFor } from '@conduit/testing';
import { usePgSandbox } from './support/pg-sandbox.js';
import { allowPrivateNetworks, setEnv } from './support/network-policy.js';
import { usePools } from './support/pool-fixture.js';
import { expectAbortStopsStatement } from './support/statement-abort.js';

// The test servers listen on this machine, which the default network policy refuses.
allowPrivateNetworks();

const driver = getDriver('postgres') as Required<ConnectorDriver>;
const sandbox = usePgSandbox();
const { pools, reopen, scope, readOne, connectionId, waitClosed } = usePools(
  driver,
  sandbox,
  'select pg_backend_pid() as id',
);

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

  it('keeps tenants apart: the same connector id of another tenant has its own connections', async () => {
    const mine = await connectionId({ tenantId: 't1' });
    const theirs = await connectionId({ tenantId: 't2' });
    expect(theirs).not.toBe(mine);
    expect(pools().size).toBe(2);
  });

  it('closes the pool of a connector whose config changed and opens a new one', async () => {
    const old = await connectionId();
    const changed = { ...sandbox.config, connect_timeout_ms: 4321 };
    const fresh = await connectionId({ config: changed });
    expect(fresh).not.toBe(old);
    expect(pools().size).toBe(1);
    await waitClosed(old, 'the old version to be disconnected');
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

  it('closes a pool left idle', async () => {
    await reopen(200);
    const pid = await connectionId();
    await waitClosed(pid, 'the idle connection to be closed');
    await waitFor(() => Promise.resolve(pools().size === 0), { what: 'the idle pool to be dropped', timeoutMs: 5000 });
  });

  it('closes every connection on closeAll', async () => {
    const pid = await connectionId();
    await pools().closeAll();
    await waitClosed(pid, 'the connection to be closed');
    await expect(connectionId()).rejects.toThrow('closed');
  });

  it('still applies the network policy to the connections it opens', async () => {
    const restore = setEnv({ CONNECTOR_ALLOW_PRIVATE_NETWORKS: undefined });
    try {
      await expect(connectionId({ pool: scope('refused') })).rejects.toMatchObject({ errorClass: 'config_error' });
    } finally {
      restore();
    }
  });
});
