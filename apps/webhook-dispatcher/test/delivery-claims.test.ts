// An attempt's outcome is written only under the claim it was sent with: once the sweep has taken a claim over (this
// process looked dead), the late outcome of the first send must neither overwrite the row nor plan a second retry.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { DataSource } from 'typeorm';
import type { Redis } from 'ioredis';
import type { Webhook } from '@conduit/contracts';
import { dropSchema, newSchemaName, newTenant, openSchema } from './support/db.js';
import { deleteKeys, requireRedis, testPrefix } from './support/redis.js';
import { DispatcherCaller, startDispatcher, type DispatcherUnderTest } from './support/dispatcher-app.js';
import { Receiver, waitFor } from '@conduit/testing';
import { EventPublisher, runEvent } from './support/events.js';

const prefix = testPrefix();
const schema = newSchemaName();
let redis: Redis;
let ds: DataSource;
let dispatcher: DispatcherUnderTest;
let caller: DispatcherCaller;
let receiver: Receiver;
let events: EventPublisher;

beforeAll(async () => {
  redis = await requireRedis();
  ds = await openSchema(schema);
  receiver = new Receiver();
  await receiver.start();
  dispatcher = await startDispatcher(ds, prefix, {
    allowHttp: true,
    allowPrivateNetworks: true,
    retryScheduleMs: [200],
    timeoutMs: 1000,
  });
  caller = new DispatcherCaller(prefix);
  events = new EventPublisher(prefix);
});

afterAll(async () => {
  await events?.close();
  await caller?.close();
  await dispatcher?.close();
  await receiver?.stop();
  if (ds) await dropSchema(ds, schema);
  if (redis) {
    await deleteKeys(redis, prefix);
    redis.disconnect();
  }
});

describe('claims', () => {
  it('drops the late failure of an attempt whose claim the sweep took over, without planning a retry', async () => {
    const tenant = newTenant();
    // The first POST never answers: this process's send ends in a timeout failure after 1 s.
    const hook = receiver.endpoint((n) => (n === 0 ? 'hang' : { status: 200 }));
    const webhook = await caller.ok<Webhook>(tenant, 'webhooks.webhooks.create', {
      body: { url: hook.url, events: ['job.failed'], secret: 'claims-secret-0123456789' },
    });
    await events.publish(runEvent(tenant, 'run.failed'));
    await waitFor(() => receiver.requests(hook.path).length === 1, { what: 'the first POST' });
    const [row] = await ds.query<{ id: string }[]>(`SELECT id FROM deliveries WHERE webhook_id = $1`, [webhook.id]);
    // What the sweep's re-claim writes while the first send is still hanging.
    await ds.query(`UPDATE deliveries SET claimed_at = claimed_at + interval '1 millisecond' WHERE id = $1`, [row!.id]);

    await waitFor(
      () =>
        dispatcher
          .logs()
          .split('\n')
          .some((l) => l.includes('its claim was taken over') && l.includes(row!.id)),
      { what: 'the dropped outcome', timeoutMs: 5000 },
    );
    const rows = await ds.query<object[]>(
      `SELECT attempt, status, status_code, error FROM deliveries WHERE webhook_id = $1 ORDER BY attempt`,
      [webhook.id],
    );
    expect(rows).toEqual([{ attempt: 1, status: 'pending', status_code: null, error: null }]);
  });
});
