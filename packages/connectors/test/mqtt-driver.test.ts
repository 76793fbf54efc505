import { randomUUID } from 'node:crypto';
import mqtt from 'mqtt';
import { getDriver, type ConnectorDriver, type Row } from '../src/index.js';
import { startAuthMosquitto } from './support/mosquitto.js';
import { suiteFixture } from './support/suite-fixture.js';
import { allowPrivateNetworks } from './support/network-policy.js';
import { inBatches, readBatches } from './support/driver-batches.js';
import { expectAuthenticateRefused, expectReadRefused, expectUnreachable } from './support/driver-checks.js';
import { expectPassed } from './support/test-connection.js';

// The test servers listen on this machine, which the default network policy refuses.
allowPrivateNetworks();

const driver = getDriver('mqtt') as Required<ConnectorDriver>;
const id = randomUUID();
const CONFIG = { host: '127.0.0.1', port: 1883 };
const clientId = `conduit-test-${id}`;

const readAll = (req: Record<string, unknown>, config: Record<string, unknown> = CONFIG) =>
  readBatches(driver, config, req);

beforeAll(async () => {
  const result = await driver.test(CONFIG);
  if (!result.ok) throw new Error(`these tests need Mosquitto at 127.0.0.1:1883: ${result.message}`);
});
afterAll(async () => {
  // Drop the persistent session the tests created on the shared broker.
  const client = await mqtt.connectAsync({ host: '127.0.0.1', port: 1883, clientId, clean: true, reconnectPeriod: 0 });
  await client.endAsync();
});

describe('mqtt write and read', () => {
  it('collects QoS 1 messages published while a persistent session was away', async () => {
    const topic = `conduit/test/${id}/stored`;
    await expect(readAll({ topic, client_id: clientId, wait_ms: 200 })).resolves.toEqual({ sizes: [], rows: [] });
    const rows = Array.from({ length: 300 }, (_, i) => ({ id: i, ok: true }));
    await expect(driver.write(CONFIG, { table: '', mode: 'append', topic }, inBatches(rows, 120))).resolves.toEqual({
      rows_written: 300,
    });
    const read = await readAll({ topic, client_id: clientId, wait_ms: 5000, max_messages: 300, batchSize: 100 });
    expect(read.sizes).toEqual([100, 100, 100]);
    expect(read.rows.map((r) => r['id']).sort((a, b) => Number(a) - Number(b))).toEqual(rows.map((r) => r.id));
  });

  it('stops at max_messages on a live topic without waiting out wait_ms', async () => {
    const topic = `conduit/test/${id}/live`;
    const started = Date.now();
    const reading = readAll({ topic: `conduit/test/${id}/+`, max_messages: 5, wait_ms: 20_000 });
    const publisher = await mqtt.connectAsync({ host: '127.0.0.1', port: 1883, reconnectPeriod: 0 });
    try {
      const deadline = Date.now() + 10_000;
      let result: { rows: Row[] } | undefined;
      void reading.then((r) => (result = r));
      for (let i = 0; !result && Date.now() < deadline; i++) {
        await publisher.publishAsync(topic, JSON.stringify({ n: i }), { qos: 1 });
        // Paces the publishes until the reader's subscription is up; the reader's end is what is awaited.
        await new Promise((r) => setTimeout(r, 50));
      }
      const { rows } = await reading;
      expect(rows).toHaveLength(5);
      expect(Date.now() - started).toBeLessThan(15_000);
    } finally {
      await publisher.endAsync();
    }
  });

  it('needs a topic', async () => {
    await expect(readAll({})).rejects.toMatchObject({
      errorClass: 'config_error',
      message: 'this connector needs topic',
    });
  });
});

describe('mqtt Test Connection', () => {
  it('passes every check against the local Mosquitto', async () => {
    expectPassed(await driver.test(CONFIG), ['resolve', 'network_policy', 'connect', 'authenticate']);
  });

  it('calls an unknown host a config_error and a closed port a transient_error, quickly', async () => {
    await expectUnreachable(driver, (host, port) => ({ host, port }));
  });

  describe('against a broker that requires a password', () => {
    const password = `pw-${randomUUID()}`;
    const broker = suiteFixture(
      () => startAuthMosquitto('conduit', password),
      (server) => server.stop(),
    );

    it('accepts the right password and calls a wrong one a config_error without showing it', async () => {
      const right = await driver.test({ host: '127.0.0.1', port: broker.port, username: 'conduit', password });
      expect(right).toMatchObject({ ok: true });
      const wrong = `${password}-wrong`;
      const withWrong = { host: '127.0.0.1', port: broker.port, username: 'conduit', password: wrong };
      expectAuthenticateRefused(await driver.test(withWrong), wrong);
      await expectReadRefused(readAll({ topic: 'x' }, withWrong), wrong);
    });
  });
});
