import { randomUUID } from 'node:crypto';
import { getDriver, type ConnectorDriver } from '../src/index.js';
import { MYSQL_HOST, useMysqlSandbox } from './support/mysql-sandbox.js';
import { allowPrivateNetworks } from './support/network-policy.js';
import { describeSqlServerFailures } from './support/sql-test-connection.js';
import { checkNames, expectPassed } from './support/test-connection.js';

// The test servers listen on this machine, which the default network policy refuses.
allowPrivateNetworks();

const driver = getDriver('mysql') as ConnectorDriver;
const sandbox = useMysqlSandbox();

describe('mysql Test Connection', () => {
  it('is listed as a database type with a secret password serving source, sink and sql', () => {
    expect(driver.info).toMatchObject({ type: 'mysql', category: 'database', secret_fields: ['password'] });
    expect([...driver.info.roles].sort()).toEqual(['sink', 'source', 'sql']);
    const props = driver.info.config_schema['properties'] as Record<string, Record<string, unknown>>;
    expect(props['password']).toMatchObject({ writeOnly: true, 'x-secret': true });
  });

  it('passes every check against the local server and reports the version', async () => {
    const result = await driver.test(sandbox.config);
    expectPassed(result, ['resolve', 'network_policy', 'connect', 'authenticate', 'read_access', 'privileges']);
    expect(String(result.details['server_version'])).toMatch(/^\d+\.\d+/);
    expect(result.details['current_user']).toMatch(/^root@/);
    expect(Date.parse(result.tested_at)).not.toBeNaN();
  });

  it('calls a wrong password a config_error at authenticate, never showing either password', async () => {
    const user = `conduit_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
    const rightPassword = `right-${randomUUID()}`;
    const wrongPassword = `wrong-${randomUUID()}`;
    await sandbox.admin.query('create user ?@? identified by ?', [user, '%', rightPassword]);
    await sandbox.admin.query(`grant select on ${sandbox.database}.* to ?@?`, [user, '%']);
    try {
      const ok = await driver.test({ ...sandbox.config, user, password: rightPassword });
      expect(ok).toMatchObject({ ok: true, error_class: null });
      const result = await driver.test({ ...sandbox.config, user, password: wrongPassword });
      expect(result).toMatchObject({ ok: false, error_class: 'config_error' });
      expect(checkNames(result)).toEqual(['resolve:ok', 'network_policy:ok', 'connect:ok', 'authenticate:failed']);
      expect(result.message).toMatch(/Access denied for user .*ER_ACCESS_DENIED_ERROR.*SQLSTATE 28000/);
      const text = JSON.stringify([ok, result]);
      expect(text).not.toContain(rightPassword);
      expect(text).not.toContain(wrongPassword);
    } finally {
      await sandbox.admin.query('drop user ?@?', [user, '%']);
    }
  });

  it('warns (still ok) when the session has SUPER or FILE, and not otherwise', async () => {
    const root = await driver.test(sandbox.config);
    expect(root).toMatchObject({ ok: true });
    expect(root.checks.find((c) => c.name === 'privileges')).toMatchObject({
      ok: true,
      message: expect.stringMatching(/^warning: .*(SUPER|FILE)/),
    });
    expect(root.details['warnings']).toHaveLength(1);

    const user = `conduit_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
    const password = `pw-${randomUUID()}`;
    await sandbox.admin.query('create user ?@? identified by ?', [user, '%', password]);
    await sandbox.admin.query(`grant select on ${sandbox.database}.* to ?@?`, [user, '%']);
    try {
      const plain = await driver.test({ ...sandbox.config, user, password });
      expect(plain.checks.find((c) => c.name === 'privileges')).toMatchObject({
        ok: true,
        message: 'the session has no superuser or server file rights',
      });
      await sandbox.admin.query('grant file on *.* to ?@?', [user, '%']);
      const file = await driver.test({ ...sandbox.config, user, password });
      expect(file.checks.find((c) => c.name === 'privileges')?.message).toMatch(
        /^warning: the session has the FILE privilege/,
      );
    } finally {
      await sandbox.admin.query('drop user ?@?', [user, '%']);
    }
  });

  it('answers an invalid config without connecting', async () => {
    const result = await driver.test({ host: MYSQL_HOST, port: 70000 });
    expect(result).toMatchObject({ ok: false, error_class: 'config_error', checks: [] });
    expect(result.message).toMatch(/config\.port/);
    expect(result.message).toMatch(/config\.database/);
  });

  describeSqlServerFailures({ driver, sandbox, unknownDatabase: /Unknown database/ });
});
