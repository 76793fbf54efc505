import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { getDriver, type ConnectorDriver } from '../src/index.js';
import { PG_HOST, usePgSandbox } from './support/pg-sandbox.js';
import { allowPrivateNetworks } from './support/network-policy.js';
import { describeSqlServerFailures } from './support/sql-test-connection.js';
import { checkNames, expectPassed } from './support/test-connection.js';

// The test servers listen on this machine, which the default network policy refuses.
allowPrivateNetworks();

const driver = getDriver('postgres') as ConnectorDriver;
const sandbox = usePgSandbox();

describe('postgres Test Connection', () => {
  it('passes every check against the local server and reports the version', async () => {
    const password = `pw-${randomUUID()}`;
    const result = await driver.test({ ...sandbox.config, password });
    expectPassed(result, ['resolve', 'network_policy', 'connect', 'authenticate', 'read_access', 'privileges']);
    expect(result.details['server_version']).toMatch(/^\d+(\.\d+)?/);
    expect(result.details['current_user']).toBe('postgres');
    expect(result.latency_ms).toBeGreaterThanOrEqual(0);
    expect(Date.parse(result.tested_at)).not.toBeNaN();
    expect(JSON.stringify(result)).not.toContain(password);
  });

  it('resolves a host name', async () => {
    const result = await driver.test({ ...sandbox.config, host: 'localhost' });
    expect(result.checks[0]).toMatchObject({ name: 'resolve', ok: true });
    expect(result.checks[0]?.message).toMatch(/^localhost resolves to /);
  });

  it('calls an unknown role a config_error at authenticate, never showing the password', async () => {
    // The role name holds the password, so the server's own message would show it if we did not scrub it.
    const password = `S3cret${randomUUID().slice(0, 8)}`;
    const result = await driver.test({ ...sandbox.config, user: `nobody_${password}`, password });
    expect(result).toMatchObject({ ok: false, error_class: 'config_error' });
    expect(checkNames(result)).toEqual(['resolve:ok', 'network_policy:ok', 'connect:ok', 'authenticate:failed']);
    expect(result.message).toMatch(/role "nobody_\*{8}" does not exist \(SQLSTATE 28000\)/);
    expect(JSON.stringify(result)).not.toContain(password);
  });

  it('calls a missing schema privilege a config_error at read_access', async () => {
    const role = `conduit_t_${randomUUID().replace(/-/g, '').slice(0, 16)}`;
    await sandbox.admin.query(`create role ${pg.escapeIdentifier(role)} login`);
    try {
      const result = await driver.test({ ...sandbox.config, user: role });
      expect(result).toMatchObject({ ok: false, error_class: 'config_error' });
      expect(checkNames(result)).toEqual([
        'resolve:ok',
        'network_policy:ok',
        'connect:ok',
        'authenticate:ok',
        'read_access:failed',
      ]);
      expect(result.message).toBe(`user "${role}" has no USAGE privilege on schema "${sandbox.schema}"`);
    } finally {
      await sandbox.admin.query(`drop role ${pg.escapeIdentifier(role)}`);
    }
  });

  it('warns (still ok) when the session is a superuser or may touch server files or programs, and not otherwise', async () => {
    const superuser = await driver.test(sandbox.config);
    expect(superuser).toMatchObject({ ok: true, error_class: null });
    expect(superuser.checks.find((c) => c.name === 'privileges')).toMatchObject({
      ok: true,
      message: expect.stringMatching(/^warning: .*superuser/),
    });
    expect(superuser.details['warnings']).toEqual([expect.stringContaining('run programs')]);
    expect(superuser.message).toMatch(/\(warning: /);

    const role = `conduit_t_${randomUUID().replace(/-/g, '').slice(0, 16)}`;
    const quoted = pg.escapeIdentifier(role);
    await sandbox.admin.query(`create role ${quoted} login`);
    await sandbox.admin.query(`grant usage on schema ${pg.escapeIdentifier(sandbox.schema)} to ${quoted}`);
    try {
      const plain = await driver.test({ ...sandbox.config, user: role });
      expect(plain).toMatchObject({ ok: true });
      expect(plain.checks.find((c) => c.name === 'privileges')).toMatchObject({
        ok: true,
        message: 'the session has no superuser or server file rights',
      });
      expect(plain.details['warnings']).toBeUndefined();

      await sandbox.admin.query(`grant pg_execute_server_program to ${quoted}`);
      const programs = await driver.test({ ...sandbox.config, user: role });
      expect(programs.checks.find((c) => c.name === 'privileges')?.message).toMatch(
        /^warning: .*pg_execute_server_program/,
      );
    } finally {
      await sandbox.admin.query(`revoke all on schema ${pg.escapeIdentifier(sandbox.schema)} from ${quoted}`);
      await sandbox.admin.query(`drop role ${quoted}`);
    }
  });

  it('calls a missing schema a config_error at read_access', async () => {
    const result = await driver.test({ ...sandbox.config, schema: `${sandbox.schema}_missing` });
    expect(result).toMatchObject({ ok: false, error_class: 'config_error' });
    expect(result.message).toMatch(/does not exist/);
  });

  it('answers an invalid config without connecting', async () => {
    const result = await driver.test({ host: PG_HOST, port: 0 });
    expect(result).toMatchObject({ ok: false, error_class: 'config_error', checks: [] });
    expect(result.message).toMatch(/config\.port/);
    expect(result.message).toMatch(/config\.database/);
  });

  describeSqlServerFailures({ driver, sandbox, unknownDatabase: /3D000/ });
});
