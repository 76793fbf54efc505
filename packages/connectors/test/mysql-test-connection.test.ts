import { randomUUID } from 'node:crypto';
import { createServer, type Server, type Socket } from 'node:net';
import { getDriver, type ConnectorDriver, type TestResult } from '../src/index.js';
import { MYSQL_HOST, useMysqlSandbox } from './support/mysql-sandbox.js';
import { freePort } from './support/pg-sandbox.js';
import { allowPrivateNetworks } from './support/network-policy.js';
import { waitFor } from '@conduit/testing';

// The test servers listen on this machine, which the default network policy refuses.
allowPrivateNetworks();

const driver = getDriver('mysql') as ConnectorDriver;
const sandbox = useMysqlSandbox();

const names = (r: TestResult) => r.checks.map((c) => `${c.name}:${c.ok ? 'ok' : 'failed'}`);

describe('mysql Test Connection', () => {
  it('is listed as a database type with a secret password serving source, sink and sql', () => {
    expect(driver.info).toMatchObject({ type: 'mysql', category: 'database', secret_fields: ['password'] });
    expect([...driver.info.roles].sort()).toEqual(['sink', 'source', 'sql']);
    const props = driver.info.config_schema['properties'] as Record<string, Record<string, unknown>>;
    expect(props['password']).toMatchObject({ writeOnly: true, 'x-secret': true });
  });

  it('passes every check against the local server and reports the version', async () => {
    const result = await driver.test(sandbox.config);
    expect(result).toMatchObject({ ok: true, error_class: null });
    expect(names(result)).toEqual([
      'resolve:ok',
      'network_policy:ok',
      'connect:ok',
      'authenticate:ok',
      'read_access:ok',
      'privileges:ok',
    ]);
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
      expect(names(result)).toEqual(['resolve:ok', 'network_policy:ok', 'connect:ok', 'authenticate:failed']);
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

  it('calls an unknown host a config_error at resolve', async () => {
    const result = await driver.test({ ...sandbox.config, host: 'no-such-host.invalid' });
    expect(result).toMatchObject({ ok: false, error_class: 'config_error' });
    expect(names(result)).toEqual(['resolve:failed']);
    expect(result.message).toMatch(/unknown host/);
  });

  it('calls a closed port a transient_error at connect, quickly', async () => {
    const started = Date.now();
    const result = await driver.test({ ...sandbox.config, port: await freePort() });
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(result).toMatchObject({ ok: false, error_class: 'transient_error' });
    expect(names(result)).toEqual(['resolve:ok', 'network_policy:ok', 'connect:failed']);
    expect(result.message).toMatch(/ECONNREFUSED/);
  });

  it('calls an unknown database a config_error at authenticate', async () => {
    const result = await driver.test({ ...sandbox.config, database: `no_db_${randomUUID().slice(0, 8)}` });
    expect(result).toMatchObject({ ok: false, error_class: 'config_error' });
    expect(names(result)).toEqual(['resolve:ok', 'network_policy:ok', 'connect:ok', 'authenticate:failed']);
    expect(result.message).toMatch(/Unknown database/);
  });

  it('answers an invalid config without connecting', async () => {
    const result = await driver.test({ host: MYSQL_HOST, port: 70000 });
    expect(result).toMatchObject({ ok: false, error_class: 'config_error', checks: [] });
    expect(result.message).toMatch(/config\.port/);
    expect(result.message).toMatch(/config\.database/);
  });

  describe('against a server that accepts connections and never answers', () => {
    let server: Server;
    let port: number;
    const sockets = new Set<Socket>();

    beforeAll(async () => {
      server = createServer((socket) => {
        sockets.add(socket);
        socket.resume();
        socket.on('close', () => sockets.delete(socket));
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      port = (server.address() as { port: number }).port;
    });
    afterAll(async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    });

    it('finishes within timeoutMs as a transient_error and leaves no connection open', async () => {
      const started = Date.now();
      const result = await driver.test({ ...sandbox.config, host: '127.0.0.1', port }, { timeoutMs: 1500 });
      expect(Date.now() - started).toBeLessThan(3000);
      expect(result).toMatchObject({
        ok: false,
        error_class: 'transient_error',
        message: 'timed out: no answer within 1500 ms',
      });
      expect(names(result)).toEqual(['resolve:ok', 'network_policy:ok', 'connect:ok', 'authenticate:failed']);
      await waitFor(() => sockets.size === 0, { what: 'the driver to close its socket', timeoutMs: 2000 });
    });
  });
});
