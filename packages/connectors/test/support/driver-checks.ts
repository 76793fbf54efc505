/**
 * What the object-store, HTTP and messaging drivers' Test Connection and failed reads must say, asserted once: the
 * error class of an unknown host, a closed port and a wrong secret, and that the secret never shows.
 */
import { freePort } from '@conduit/testing';
import type { ConnectorDriver, TestResult } from '../../src/index.js';
import { checkNames } from './test-connection.js';

/** A host no resolver knows (the .invalid top-level domain is reserved for that). */
const UNKNOWN_HOST = 'no-such-host.invalid';

/** The error `work` rejects with; fails the test when it resolves. */
export async function failureOf(work: Promise<unknown>): Promise<Error & { errorClass?: string }> {
  return work.then(
    () => {
      throw new Error('expected a failure');
    },
    (err: unknown) => err as Error & { errorClass?: string },
  );
}

/** Test Connection to a host no resolver knows (`at` makes the config for it): a config_error at resolve, saying so. */
export async function expectUnknownHostRefused(
  driver: ConnectorDriver,
  at: (host: string) => Record<string, unknown>,
): Promise<void> {
  const result = await driver.test(at(UNKNOWN_HOST));
  expect(result).toMatchObject({
    ok: false,
    error_class: 'config_error',
    message: expect.stringMatching(/unknown host/),
  });
  expect(checkNames(result)).toEqual(['resolve:failed']);
}

/**
 * Test Connection to a port nothing listens on (`at` makes the config for it): a transient_error (ECONNREFUSED) at
 * `failedAt`, the first check that talks to the server, and quickly (no retries into the run's time).
 */
export async function expectClosedPortTransient(
  driver: ConnectorDriver,
  at: (port: number) => Record<string, unknown>,
  failedAt = 'connect',
): Promise<void> {
  const config = at(await freePort());
  const started = Date.now();
  const result = await driver.test(config);
  expect(Date.now() - started).toBeLessThan(10_000);
  expect(result).toMatchObject({
    ok: false,
    error_class: 'transient_error',
    message: expect.stringMatching(/ECONNREFUSED/),
  });
  expect(checkNames(result)).toEqual(['resolve:ok', 'network_policy:ok', `${failedAt}:failed`]);
}

/** Both of the above, for a config that names a host and a port (`at` makes it). */
export async function expectUnreachable(
  driver: ConnectorDriver,
  at: (host: string, port: number) => Record<string, unknown>,
  failedAt = 'connect',
): Promise<void> {
  await expectUnknownHostRefused(driver, (host) => at(host, 1));
  await expectClosedPortTransient(driver, (port) => at('127.0.0.1', port), failedAt);
}

/** A Test Connection the server refused at authenticate: a config_error that does not show `secret`. */
export function expectAuthenticateRefused(result: TestResult, secret: string): void {
  expect(result).toMatchObject({ ok: false, error_class: 'config_error' });
  expect(checkNames(result)).toEqual(['resolve:ok', 'network_policy:ok', 'connect:ok', 'authenticate:failed']);
  expect(JSON.stringify(result)).not.toContain(secret);
}

/** A read with a wrong secret: a config_error whose message does not show the secret. */
export async function expectReadRefused(read: Promise<unknown>, secret: string): Promise<void> {
  const failure = await failureOf(read);
  expect(failure.errorClass).toBe('config_error');
  expect(failure.message).not.toContain(secret);
}
