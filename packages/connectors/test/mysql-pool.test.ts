import { randomUUID } from 'node:crypto';
import mysql from 'mysql2/promise';
import { getDriver, type ConnectorDriver } from '../src/index.js';
import { useMysqlSandbox } from './support/mysql-sandbox.js';
import { allowPrivateNetworks } from './support/network-policy.js';
import { usePools } from './support/pool-fixture.js';
import { describePoolLifecycle } from './support/pool-lifecycle.js';
import { expectAbortStopsStatement } from './support/statement-abort.js';

// The test servers listen on this machine, which the default network policy refuses.
allowPrivateNetworks();

const driver = getDriver('mysql') as Required<ConnectorDriver>;
const sandbox = useMysqlSandbox();
const fixture = usePools(driver, sandbox);
const { scope, readOne, connectionId, waitClosed } = fixture;

describe('mysql connection pool', () => {
  it('reuses one connection across calls, reset in between: variables and temporary tables never reach the next', async () => {
    const id = await connectionId();
    await driver.execute(sandbox.config, "set @leaked = 'yes'", { tenantId: 't1', pool: scope() });
    await driver.execute(sandbox.config, 'set session wait_timeout = 1234', { tenantId: 't1', pool: scope() });
    await driver.execute(sandbox.config, 'create temporary table leaked_temp (a int)', {
      tenantId: 't1',
      pool: scope(),
    });
    const after = await readOne(
      `select connection_id() as id, @leaked as leaked, @@session.wait_timeout = @@global.wait_timeout as timeout_reset`,
    );
    expect({ ...after, id: Number(after['id']) }).toEqual({ id, leaked: null, timeout_reset: 1 });
    // The temporary table went with the reset: making it again on the same connection works.
    await driver.execute(sandbox.config, 'create temporary table leaked_temp (a int)', {
      tenantId: 't1',
      pool: scope(),
    });
    expect(await connectionId()).toBe(id);
  });

  it("gives the next call the connector's database and the handshake's character set, whatever the last one did", async () => {
    const session =
      'select connection_id() as id, database() as db, @@character_set_client as cs, @@collation_connection as coll, @@character_set_results as res';
    const fresh = await readOne(session);
    await driver.execute(sandbox.config, 'use information_schema', { tenantId: 't1', pool: scope() });
    await driver.execute(sandbox.config, 'set names latin1', { tenantId: 't1', pool: scope() });
    const next = await readOne(session);
    expect(next).toEqual({ ...fresh, db: sandbox.database });
    // MariaDB's reset restores the handshake's character set by itself; MySQL's falls back to the server's default.
    // Text both ways survives: the server reads the query as the driver encoded it.
    expect(await readOne("select 'żółw 🐢' as s")).toEqual({ s: 'żółw 🐢' });
  });

  it('quotes the database it sets again (a name with a backtick)', async () => {
    const odd = `${sandbox.database.slice(0, 40)}_a\`b`;
    await sandbox.admin.query(`create database ${mysql.escapeId(odd)}`);
    try {
      const config = { ...sandbox.config, database: odd };
      const session = 'select connection_id() as id, database() as db';
      const before = await readOne(session, { config, pool: scope('odd') });
      await driver.execute(config, 'use information_schema', { tenantId: 't1', pool: scope('odd') });
      // The same connection: setting the database again succeeded (a failed step would have destroyed it).
      expect(await readOne(session, { config, pool: scope('odd') })).toEqual({ ...before, db: odd });
    } finally {
      await sandbox.admin.query(`drop database ${mysql.escapeId(odd)}`);
    }
  });

  it('kills a pooled query on the server on abort and never reuses its connection', async () => {
    const id = await connectionId();
    const marker = `m${randomUUID().replace(/-/g, '')}`;
    await expectAbortStopsStatement(
      (signal) =>
        driver.execute(sandbox.config, `select sleep(60) as ${marker}`, { tenantId: 't1', pool: scope(), signal }),
      () => sandbox.threadRuns(marker),
    );
    await waitClosed(id, 'the killed connection to be closed');
    expect(await connectionId()).not.toBe(id);
  });

  it('opens at most `max` connections: a further caller waits for one to come back', async () => {
    const reads = Array.from({ length: 3 }, () => readOne('select connection_id() as id, sleep(0.3) as slept'));
    const ids = (await Promise.all(reads)).map((row) => Number(row['id']));
    expect(new Set(ids).size).toBe(2);
  });

  describePoolLifecycle(sandbox, fixture);
});
