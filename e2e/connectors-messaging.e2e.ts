import { randomUUID } from 'node:crypto';
import { jetstream, jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import { connect as connectNats, type NatsConnection } from '@nats-io/transport-node';
import amqp, { type Channel, type ChannelModel } from 'amqplib';
import { createConnector, nodeOf, runDagToEnd, waitFor } from './support/helpers.js';
import { useTargetStack } from './support/target-stack.js';

// Message queue category end to end: PostgreSQL rows published to a RabbitMQ queue (consumed and checked here), and
// a JetStream stream (published to here) loaded into PostgreSQL by a bounded read.
const target = useTargetStack();
let rabbit: ChannelModel;
let channel: Channel;
let nats: NatsConnection;
let jsm: JetStreamManager;
const suffix = randomUUID().replace(/-/g, '').slice(0, 12);
const queue = `conduit-e2e-${suffix}`;
const stream = `CONDUIT_E2E_${suffix}`;
const subjectBase = `conduit.e2e.${suffix}`;

beforeAll(async () => {
  try {
    rabbit = await amqp.connect('amqp://guest:guest@127.0.0.1:5672', { timeout: 5000 });
  } catch (err) {
    throw new Error(`this suite needs RabbitMQ at 127.0.0.1:5672 (guest/guest): ${(err as Error).message}`, {
      cause: err,
    });
  }
  channel = await rabbit.createChannel();
  await channel.assertQueue(queue, { durable: false });
  try {
    nats = await connectNats({ servers: '127.0.0.1:4222', timeout: 5000, reconnect: false });
  } catch (err) {
    throw new Error(`this suite needs NATS with JetStream at 127.0.0.1:4222: ${(err as Error).message}`, {
      cause: err,
    });
  }
  jsm = await jetstreamManager(nats);
  await jsm.streams.add({ name: stream, subjects: [`${subjectBase}.>`] });
});

afterAll(async () => {
  if (channel) await channel.deleteQueue(queue);
  await rabbit?.close();
  if (jsm) await jsm.streams.delete(stream);
  await nats?.close();
});

describe('postgres -> amqp', () => {
  it('publishes every row of a PostgreSQL query as a JSON message to a RabbitMQ queue', async () => {
    await target.db.query(
      'create table shipments (id int primary key, carrier text, express boolean, shipped_at timestamptz)',
    );
    await target.db.query(
      `insert into shipments select g, 'carrier-' || (g % 4), g % 3 = 0, timestamptz '2024-06-01 08:00:00+00' + g * interval '1 minute'
       from generate_series(1, 600) g`,
    );
    const broker = await createConnector(target.stack, 'amqp', {
      host: '127.0.0.1',
      port: 5672,
      username: 'guest',
      password: 'guest',
    });
    const dag = {
      nodes: [
        {
          id: 'extract',
          type: 'source',
          config: { connector_id: target.connectorId, query: 'select * from shipments order by id' },
        },
        { id: 'publish', type: 'sink', config: { connector_id: broker, queue } },
      ],
      edges: [{ from: 'extract', to: 'publish' }],
    };
    const run = await runDagToEnd(target.stack, dag, 45_000);
    expect(run.status).toBe('succeeded');
    expect(nodeOf(run, 'publish')).toMatchObject({ status: 'succeeded', rows_out: 600 });

    // Publisher confirms mean every message is in the queue once the run is over; take them all.
    const messages: Record<string, unknown>[] = [];
    const contentTypes = new Set<unknown>();
    await waitFor(
      async () => {
        for (
          let msg = await channel.get(queue, { noAck: true });
          msg !== false;
          msg = await channel.get(queue, { noAck: true })
        ) {
          contentTypes.add(msg.properties.contentType);
          messages.push(JSON.parse(msg.content.toString('utf8')) as Record<string, unknown>);
        }
        return messages.length >= 600;
      },
      { what: '600 messages in the queue', timeoutMs: 10_000 },
    );
    expect(messages).toHaveLength(600);
    expect([...contentTypes]).toEqual(['application/json']);
    messages.sort((a, b) => Number(a['id']) - Number(b['id']));
    expect(messages).toEqual(
      Array.from({ length: 600 }, (_, i) => ({
        id: i + 1,
        carrier: `carrier-${(i + 1) % 4}`,
        express: (i + 1) % 3 === 0,
        shipped_at: new Date(Date.UTC(2024, 5, 1, 8, i + 1)).toISOString(),
      })),
    );
    expect((await channel.checkQueue(queue)).messageCount).toBe(0);
  });
});

describe('nats -> postgres', () => {
  it('loads the messages of a JetStream stream into PostgreSQL, bounded by max_messages', async () => {
    const js = jetstream(nats);
    const readings = Array.from({ length: 450 }, (_, i) => ({
      id: i + 1,
      sensor: `s-${i % 9}`,
      celsius: (i % 50) / 2,
    }));
    for (const reading of readings) await js.publish(`${subjectBase}.readings`, JSON.stringify(reading));
    // Another subject in the same stream: the node's subject filter keeps it out.
    await js.publish(`${subjectBase}.noise`, JSON.stringify({ id: -1, sensor: 'noise', celsius: 0 }));
    expect((await jsm.streams.info(stream)).state.messages).toBe(451);

    await target.db.query('create table readings (id int primary key, sensor text, celsius double precision)');
    const natsConnector = await createConnector(target.stack, 'nats', { host: '127.0.0.1', port: 4222 });
    const dag = {
      nodes: [
        {
          id: 'consume',
          type: 'source',
          config: {
            connector_id: natsConnector,
            stream,
            subject: `${subjectBase}.readings`,
            consumer: 'etl',
            max_messages: 1000,
            wait_ms: 1000,
          },
        },
        { id: 'load', type: 'sink', config: { connector_id: target.connectorId, table: 'readings', mode: 'append' } },
      ],
      edges: [{ from: 'consume', to: 'load' }],
    };
    const run = await runDagToEnd(target.stack, dag, 45_000);
    expect(run.status).toBe('succeeded');
    expect(nodeOf(run, 'consume')).toMatchObject({ status: 'succeeded', rows_out: 450 });
    expect(nodeOf(run, 'load')).toMatchObject({ status: 'succeeded', rows_out: 450 });

    const { rows } = await target.db.query<{ id: number; sensor: string; celsius: number }>(
      'select id, sensor, celsius from readings order by id',
    );
    expect(rows).toEqual(readings);
    // The durable consumer acknowledged everything it handed over: a later run starts after it.
    const consumer = await jsm.consumers.info(stream, 'etl');
    expect({ pending: consumer.num_pending, unacked: consumer.num_ack_pending }).toEqual({ pending: 0, unacked: 0 });
  });
});
