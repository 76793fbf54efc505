import { randomUUID } from 'node:crypto';
import { getDriver, type ConnectorDriver } from '../src/index.js';
import { AMQP_CONFIG, connectAmqpAdmin, type AmqpAdmin } from './support/amqp-admin.js';
import { allowPrivateNetworks } from './support/network-policy.js';
import { waitFor } from '@conduit/testing';
import { inBatches, readBatches } from './support/driver-batches.js';
import { expectAuthenticateRefused, expectReadRefused, expectUnreachable } from './support/driver-checks.js';
import { checkNames, expectPassed } from './support/test-connection.js';

// The test servers listen on this machine, which the default network policy refuses.
allowPrivateNetworks();

const driver = getDriver('amqp') as Required<ConnectorDriver>;
const suffix = randomUUID();
const queue = `conduit-test-${suffix}`;
const exchange = `conduit-test-x-${suffix}`;
let admin: AmqpAdmin;

const readAll = (req: Record<string, unknown>) => readBatches(driver, AMQP_CONFIG, req);

beforeAll(async () => {
  admin = await connectAmqpAdmin();
  await admin.channel.assertQueue(queue, { durable: false });
  await admin.channel.assertExchange(exchange, 'direct', { durable: false, autoDelete: false });
  await admin.channel.bindQueue(queue, exchange, 'orders');
});
afterAll(async () => {
  await admin.channel.deleteExchange(exchange);
  await admin.channel.deleteQueue(queue);
  await admin.close();
});

describe('amqp write and read', () => {
  it('publishes rows with confirms and consumes them back in bounded, acknowledged batches', async () => {
    const rows = Array.from({ length: 2500 }, (_, i) => ({ id: i, label: `m${i}`, nested: { ok: true } }));
    await expect(
      driver.write(AMQP_CONFIG, { table: '', mode: 'append', queue }, inBatches(rows, 700)),
    ).resolves.toEqual({ rows_written: 2500 });
    expect((await admin.channel.checkQueue(queue)).messageCount).toBe(2500);

    const first = await readAll({ queue, max_messages: 2000, wait_ms: 500, batchSize: 1000 });
    expect(first.sizes).toEqual([1000, 1000]);
    expect(first.rows[0]).toEqual({ id: 0, label: 'm0', nested: { ok: true } });
    const rest = await readAll({ queue, max_messages: 2000, wait_ms: 500 });
    expect(rest.rows.map((r) => r['id'])).toEqual(Array.from({ length: 500 }, (_, i) => 2000 + i));
    expect((await admin.channel.checkQueue(queue)).messageCount).toBe(0);
  });

  it('ends after wait_ms on an empty queue', async () => {
    const started = Date.now();
    await expect(readAll({ queue, wait_ms: 300 })).resolves.toEqual({ sizes: [], rows: [] });
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('puts back the messages of a batch that was not handed over', async () => {
    await driver.write(
      AMQP_CONFIG,
      { table: '', mode: 'append', exchange, routing_key: 'orders' },
      inBatches([{ a: 1 }, { a: 2 }, { a: 3 }], 3),
    );
    for await (const batch of driver.read(AMQP_CONFIG, { queue, wait_ms: 300, batchSize: 2 })) {
      expect(batch).toEqual([{ a: 1 }, { a: 2 }]);
      break;
    }
    await waitFor(async () => (await admin.channel.checkQueue(queue)).messageCount === 3, {
      what: 'the three unacknowledged messages back on the queue',
      timeoutMs: 5000,
    });
    const again = await readAll({ queue, wait_ms: 300 });
    expect(again.rows).toHaveLength(3);
    expect(again.rows.map((r) => r['a']).sort()).toEqual([1, 2, 3]);
  });

  it('refuses an unroutable message and a missing queue as config errors', async () => {
    await expect(
      driver.write(
        AMQP_CONFIG,
        { table: '', mode: 'append', exchange, routing_key: 'nowhere' },
        inBatches([{ a: 1 }], 1),
      ),
    ).rejects.toMatchObject({ errorClass: 'config_error', message: expect.stringMatching(/could not be routed/) });
    await expect(readAll({ queue: `missing-${suffix}` })).rejects.toMatchObject({
      errorClass: 'config_error',
      message: expect.stringMatching(/NOT_FOUND/),
    });
    await expect(driver.write(AMQP_CONFIG, { table: '', mode: 'append' }, inBatches([], 1))).rejects.toMatchObject({
      errorClass: 'config_error',
    });
  });
});

describe('amqp Test Connection', () => {
  it('passes every check against the local RabbitMQ', async () => {
    const result = await driver.test(AMQP_CONFIG);
    expectPassed(result, ['resolve', 'network_policy', 'connect', 'authenticate', 'open_channel']);
    expect(result.details).toMatchObject({ server_product: 'RabbitMQ' });
  });

  it('calls a wrong password a config_error at authenticate and never shows it', async () => {
    const password = `pw-${randomUUID()}`;
    const result = await driver.test({ ...AMQP_CONFIG, password });
    expectAuthenticateRefused(result, password);
    expect(result.message).toMatch(/ACCESS.REFUSED/);
    await expect(readAll({ queue })).resolves.toBeDefined(); // the right password still reads
    await expectReadRefused(readBatches(driver, { ...AMQP_CONFIG, password }, { queue }), password);
  });

  it('calls an unknown vhost a config_error', async () => {
    const result = await driver.test({ ...AMQP_CONFIG, vhost: `nope-${suffix}` });
    expect(result).toMatchObject({ ok: false, error_class: 'config_error' });
    expect(checkNames(result)).toEqual(['resolve:ok', 'network_policy:ok', 'connect:ok', 'authenticate:failed']);
  });

  it('calls an unknown host a config_error and a closed port a transient_error, quickly', async () => {
    await expectUnreachable(driver, (host, port) => ({ ...AMQP_CONFIG, host, port }));
  });
});
