import { randomUUID } from 'node:crypto';
import { jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import { getDriver, type ConnectorDriver } from '../src/index.js';
import { NATS_CONFIG, connectNatsAdmin, startAuthNatsServer } from './support/nats-admin.js';
import { allowPrivateNetworks } from './support/network-policy.js';
import { suiteFixture } from './support/suite-fixture.js';
import { inBatches, readBatches } from './support/driver-batches.js';
import { expectAuthenticateRefused, expectReadRefused, expectUnreachable } from './support/driver-checks.js';
import { checkNames, expectPassed } from './support/test-connection.js';

// The test servers listen on this machine, which the default network policy refuses.
allowPrivateNetworks();

const driver = getDriver('nats') as Required<ConnectorDriver>;
const id = randomUUID().replace(/-/g, '');
const stream = `conduit_test_${id}`;
const subjectBase = `conduit.test.${id}`;
let admin: NatsConnection;
let jsm: JetStreamManager;

const readAll = (req: Record<string, unknown>, config: Record<string, unknown> = NATS_CONFIG) =>
  readBatches(driver, config, req);

beforeAll(async () => {
  admin = await connectNatsAdmin();
  jsm = await jetstreamManager(admin);
  await jsm.streams.add({ name: stream, subjects: [`${subjectBase}.>`] });
});
afterAll(async () => {
  await jsm.streams.delete(stream);
  await admin.close();
});

describe('nats write and read', () => {
  it('publishes with JetStream acks and fetches bounded batches through a durable consumer', async () => {
    const rows = Array.from({ length: 1200 }, (_, i) => ({ id: i, kind: i % 2 === 0 ? 'even' : 'odd' }));
    await expect(
      driver.write(NATS_CONFIG, { table: '', mode: 'append', subject: `${subjectBase}.orders` }, inBatches(rows, 500)),
    ).resolves.toEqual({ rows_written: 1200 });
    expect((await jsm.streams.info(stream)).state.messages).toBe(1200);

    const first = await readAll({ stream, consumer: 'etl', max_messages: 1000, batchSize: 400, wait_ms: 1000 });
    expect(first.sizes).toEqual([400, 400, 200]);
    expect(first.rows.map((r) => r['id'])).toEqual(Array.from({ length: 1000 }, (_, i) => i));
    const rest = await readAll({ stream, consumer: 'etl', max_messages: 1000, wait_ms: 1000 });
    expect(rest.rows.map((r) => r['id'])).toEqual(Array.from({ length: 200 }, (_, i) => 1000 + i));
    const info = await jsm.consumers.info(stream, 'etl');
    expect(info.num_ack_pending).toBe(0);
    expect(info.num_pending).toBe(0);
  });

  it('reads the stream from its start without a consumer, filtered by subject', async () => {
    await driver.write(
      NATS_CONFIG,
      { table: '', mode: 'append', subject: `${subjectBase}.other` },
      inBatches([{ x: 'a' }, { x: 'b' }], 2),
    );
    const { rows } = await readAll({ stream, subject: `${subjectBase}.other`, wait_ms: 1000 });
    expect(rows).toEqual([{ x: 'a' }, { x: 'b' }]);
  });

  it('fails with a config_error for a missing stream and a missing subject', async () => {
    await expect(readAll({ stream: `missing_${id}`, consumer: 'c' })).rejects.toMatchObject({
      errorClass: 'config_error',
      message: expect.stringMatching(/stream not found/),
    });
    await expect(
      driver.write(NATS_CONFIG, { table: '', mode: 'append' }, inBatches([{ a: 1 }], 1)),
    ).rejects.toMatchObject({
      errorClass: 'config_error',
      message: 'this connector needs subject',
    });
  });
});

describe('nats Test Connection', () => {
  it('passes every check against the local NATS', async () => {
    const result = await driver.test(NATS_CONFIG);
    expectPassed(result, ['resolve', 'network_policy', 'connect', 'authenticate', 'jetstream']);
    expect(result.details['server_version']).toMatch(/^\d+\.\d+/);
  });

  it('calls an unknown host a config_error and a closed port a transient_error, quickly', async () => {
    await expectUnreachable(driver, (host, port) => ({ host, port }));
  });

  describe('against a nats-server that requires a password', () => {
    const password = `pw-${randomUUID()}`;
    const server = suiteFixture(
      () => startAuthNatsServer('conduit', password),
      (nats) => nats.stop(),
    );

    it('authenticates with the right password (no JetStream there) and refuses a wrong one without showing it', async () => {
      const right = await driver.test({ host: '127.0.0.1', port: server.port, user: 'conduit', password });
      expect(checkNames(right).slice(0, 4)).toEqual([
        'resolve:ok',
        'network_policy:ok',
        'connect:ok',
        'authenticate:ok',
      ]);
      expect(JSON.stringify(right)).not.toContain(password);

      const wrong = `${password}-wrong`;
      const withWrong = { host: '127.0.0.1', port: server.port, user: 'conduit', password: wrong };
      const result = await driver.test(withWrong);
      expectAuthenticateRefused(result, wrong);
      expect(result.message).toMatch(/authorization violation/i);
      await expectReadRefused(readAll({ stream }, withWrong), wrong);
    });
  });
});
