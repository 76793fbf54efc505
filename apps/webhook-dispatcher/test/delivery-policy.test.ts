// The address of a webhook is checked again at delivery time, not only when the webhook is saved: a host whose
// address has become private since (DNS changed, or the operator tightened the policy) gets nothing.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { DataSource } from 'typeorm';
import type { Redis } from 'ioredis';
import type { Delivery, Page, Webhook } from '@conduit/contracts';
import { dropSchema, newSchemaName, newTenant, openSchema } from './support/db.js';
import { deleteKeys, requireRedis, testPrefix } from './support/redis.js';
import { DispatcherCaller, startDispatcher, type DispatcherUnderTest } from './support/dispatcher-app.js';
import { Receiver, waitFor } from '@conduit/testing';
import { EventPublisher, runEvent } from './support/events.js';

const prefix = testPrefix();
const schema = newSchemaName();
let redis: Redis;
let ds: DataSource;
let dispatcher: DispatcherUnderTest | undefined;
let caller: DispatcherCaller;
let receiver: Receiver;
let events: EventPublisher;

beforeAll(async () => {
  redis = await requireRedis();
  ds = await openSchema(schema);
  receiver = new Receiver();
  await receiver.start();
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

describe('the network policy at delivery time', () => {
  it('does not send to a host that now resolves to a loopback address, and records why', async () => {
    const tenant = newTenant();
    const hook = receiver.endpoint();
    // Saved while the policy let the host through (as a public address would pass)...
    dispatcher = await startDispatcher(ds, prefix, {
      allowHttp: true,
      allowPrivateNetworks: true,
      retryScheduleMs: [60_000],
    });
    const webhook = await caller.ok<Webhook>(tenant, 'webhooks.webhooks.create', {
      body: { url: hook.url, events: ['job.completed'], secret: 'policy-secret-0123456789' },
    });
    await dispatcher.close();
    // ...and delivered by a replica under the default policy: the address is checked again before connecting.
    dispatcher = await startDispatcher(ds, prefix, {
      allowHttp: true,
      allowPrivateNetworks: false,
      retryScheduleMs: [60_000],
    });
    await events.publish(runEvent(tenant, 'run.succeeded'));

    const first = await waitFor(
      async () => {
        const page = await caller.ok<Page<Delivery>>(tenant, 'webhooks.deliveries.list', {
          webhook_id: webhook.id,
          query: { limit: 10 },
        });
        return page.data.find((d) => d.attempt === 1 && d.status !== 'pending');
      },
      { what: 'the refused attempt' },
    );
    expect(first).toMatchObject({ status: 'failed', status_code: null, latency_ms: 0 });
    expect(first.error).toMatch(/^not sent: host 127\.0\.0\.1 is refused: 127\.0\.0\.1 is a loopback address/);
    // A refusal is retried on the schedule like any failure: the address may be public again by then.
    expect(first.next_retry_at).not.toBeNull();
    expect(receiver.requests(hook.path)).toHaveLength(0);
  });
});
