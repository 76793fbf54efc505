/** The Test Connection failures every SQL driver must tell apart, checked the same way for each driver. */
import { randomUUID } from 'node:crypto';
import { silentListener, waitFor, type SilentListener } from '@conduit/testing';
import type { ConnectorDriver } from '../../src/index.js';
import { expectClosedPortTransient, expectUnknownHostRefused } from './driver-checks.js';
import { checkNames } from './test-connection.js';

export interface SqlServerCase {
  driver: ConnectorDriver;
  /** The suite's sandbox: its config points at the running server (read in the tests, once it exists). */
  sandbox: { config: Record<string, unknown> };
  /** How the server's refusal of an unknown database reads. */
  unknownDatabase: RegExp;
}

/** The network and login failures every SQL driver must tell apart, and how fast it must give up. */
export function describeSqlServerFailures({ driver, sandbox, unknownDatabase }: SqlServerCase): void {
  it('calls an unknown host a config_error at resolve', async () => {
    await expectUnknownHostRefused(driver, (host) => ({ ...sandbox.config, host }));
  });

  it('calls a closed port a transient_error at connect, quickly', async () => {
    await expectClosedPortTransient(driver, (port) => ({ ...sandbox.config, port }));
  });

  it('calls an unknown database a config_error at authenticate', async () => {
    const result = await driver.test({ ...sandbox.config, database: `no_db_${randomUUID().slice(0, 8)}` });
    expect(result).toMatchObject({ ok: false, error_class: 'config_error' });
    expect(checkNames(result)).toEqual(['resolve:ok', 'network_policy:ok', 'connect:ok', 'authenticate:failed']);
    expect(result.message).toMatch(unknownDatabase);
  });

  describe('against a server that accepts connections and never answers', () => {
    let silent: SilentListener;
    beforeAll(async () => {
      silent = await silentListener();
    });
    afterAll(() => silent.close());

    it('finishes within timeoutMs as a transient_error and leaves no connection open', async () => {
      const started = Date.now();
      const result = await driver.test(
        { ...sandbox.config, host: '127.0.0.1', port: silent.port },
        { timeoutMs: 1500 },
      );
      const took = Date.now() - started;
      expect(took).toBeGreaterThanOrEqual(1400);
      expect(took).toBeLessThan(3000);
      expect(result).toMatchObject({ ok: false, error_class: 'transient_error' });
      expect(checkNames(result)).toEqual(['resolve:ok', 'network_policy:ok', 'connect:ok', 'authenticate:failed']);
      expect(result.message).toBe('timed out: no answer within 1500 ms');
      await waitFor(() => silent.openConnections() === 0, {
        what: 'the driver to close its socket',
        timeoutMs: 2000,
      });
    });

    it('stops when the caller cancels', async () => {
      const controller = new AbortController();
      setTimeout(() => controller.abort(), 200);
      const result = await driver.test({ ...sandbox.config, port: silent.port }, { signal: controller.signal });
      expect(result).toMatchObject({ ok: false, error_class: 'transient_error', message: 'test canceled' });
    });
  });
}
