import { createServer, type AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { getDriver, type ConnectorDriver } from '../src/index.js';
import { allowPrivateNetworks } from './support/network-policy.js';
import { inBatches, readBatches } from './support/driver-batches.js';
import { expectAuthenticateRefused, expectReadRefused, expectUnreachable } from './support/driver-checks.js';
import { expectPassed } from './support/test-connection.js';

// The test servers listen on this machine, which the default network policy refuses.
allowPrivateNetworks();

const driver = getDriver('redis') as Required<ConnectorDriver>;
const prefix = `conduit-test:${randomUUID()}`;
const stream = `${prefix}:events`;
const aclUser = `conduit_test_${randomUUID().slice(0, 8)}`;
const aclPassword = `pw-${randomUUID()}`;
const CONFIG = { host: '127.0.0.1', port: 6379 };
let admin: Redis;

const readAll = (req: Record<string, unknown>, config: Record<string, unknown> = CONFIG) =>
  readBatches(driver, config, req);

beforeAll(async () => {
  admin = new Redis({
    host: '127.0.0.1',
    port: 6379,
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  await admin.connect().catch((err: Error) => {
    throw new Error(`these tests need Redis at 127.0.0.1:6379: ${err.message}`);
  });
  await admin.call('ACL', 'SETUSER', aclUser, 'on', `>${aclPassword}`, `~${prefix}:*`, '+@all');
});
afterAll(async () => {
  await admin.call('ACL', 'DELUSER', aclUser);
  const keys = await admin.keys(`${prefix}:*`);
  if (keys.length > 0) await admin.del(...keys);
  await admin.quit();
});

describe('redis write and read', () => {
  it('appends rows with XADD and reads them through a consumer group, acknowledging each batch', async () => {
    const rows = Array.from({ length: 1500 }, (_, i) => ({ id: i, tags: ['a', 'b'], at: '2024-01-01T00:00:00.000Z' }));
    await expect(driver.write(CONFIG, { table: '', mode: 'append', stream }, inBatches(rows, 600))).resolves.toEqual({
      rows_written: 1500,
    });
    expect(await admin.xlen(stream)).toBe(1500);

    const first = await readAll({ stream, group: 'etl', max_messages: 1000, batchSize: 400, wait_ms: 200 });
    expect(first.sizes).toEqual([400, 400, 200]);
    expect(first.rows[0]).toEqual({ id: 0, tags: ['a', 'b'], at: '2024-01-01T00:00:00.000Z' });
    const rest = await readAll({ stream, group: 'etl', max_messages: 1000, wait_ms: 200 });
    expect(rest.rows.map((r) => r['id'])).toEqual(Array.from({ length: 500 }, (_, i) => 1000 + i));
    const pending = (await admin.xpending(stream, 'etl')) as [number, ...unknown[]];
    expect(pending[0]).toBe(0);
  });

  it('reads with XRANGE without a group, and takes plain field entries as strings', async () => {
    const plain = `${prefix}:plain`;
    await admin.xadd(plain, '*', 'name', 'ann', 'age', '7');
    await admin.xadd(plain, '*', 'name', 'bob', 'age', '9');
    await expect(readAll({ stream: plain, batchSize: 1 })).resolves.toEqual({
      sizes: [1, 1],
      rows: [
        { name: 'ann', age: '7' },
        { name: 'bob', age: '9' },
      ],
    });
    await expect(readAll({ stream: plain, max_messages: 1 })).resolves.toMatchObject({ rows: [{ name: 'ann' }] });
  });

  it('fails with a config_error for a key of another type', async () => {
    const notStream = `${prefix}:string`;
    await admin.set(notStream, 'x');
    await expect(readAll({ stream: notStream })).rejects.toMatchObject({
      errorClass: 'config_error',
      message: expect.stringMatching(/WRONGTYPE/),
    });
    await expect(
      driver.write(CONFIG, { table: '', mode: 'append', stream: notStream }, inBatches([{ a: 1 }], 1)),
    ).rejects.toMatchObject({
      errorClass: 'config_error',
    });
  });
});

describe('redis Test Connection', () => {
  it('passes every check, also as an ACL user', async () => {
    const result = await driver.test(CONFIG);
    expectPassed(result, ['resolve', 'network_policy', 'connect', 'authenticate', 'ping']);
    expect(result.details['server_version']).toMatch(/^\d+\.\d+/);
    const asUser = await driver.test({ ...CONFIG, username: aclUser, password: aclPassword });
    expect(asUser.ok).toBe(true);
    expect(JSON.stringify(asUser)).not.toContain(aclPassword);
  });

  it('calls a wrong password a config_error at authenticate and never shows it', async () => {
    const wrong = `${aclPassword}-wrong`;
    const withWrong = { ...CONFIG, username: aclUser, password: wrong };
    const result = await driver.test(withWrong);
    expectAuthenticateRefused(result, wrong);
    expect(result.message).toMatch(/WRONGPASS/);
    await expectReadRefused(readAll({ stream }, withWrong), wrong);
  });

  it('fails a server that only echoes what it is sent: it is not Redis', async () => {
    const echo = createServer((socket) => socket.pipe(socket));
    await new Promise<void>((resolve) => echo.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = echo.address() as AddressInfo;
      const result = await driver.test({ ...CONFIG, port });
      expect(result).toMatchObject({ ok: false, error_class: 'config_error' });
      expect(result.message).toMatch(/does not answer as Redis does/);
    } finally {
      echo.close();
    }
  });

  it('calls an unknown host a config_error and a closed port a transient_error, quickly', async () => {
    await expectUnreachable(driver, (host, port) => ({ host, port }));
  });
});
