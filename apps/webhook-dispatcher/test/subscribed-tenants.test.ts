import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import type { Webhook } from '@conduit/contracts';
import { useDispatcherSuite } from './support/dispatcher-suite.js';
import { startDispatcher, type DispatcherUnderTest } from './support/dispatcher-app.js';
import { newTenant } from './support/db.js';
import { REDIS_URL } from './support/redis.js';
import { runEvent } from './support/events.js';
import { DeliveryPlanner } from '../src/deliveries/delivery-planner.js';
import { webhookPayloadOf } from '../src/deliveries/event-payload.js';
import { SubscribedTenants } from '../src/webhooks/subscribed-tenants.js';

const suite = useDispatcherSuite({ dispatcher: { allowHttp: true, allowPrivateNetworks: true } });
const { caller, receiver } = suite;
/** A second replica on the same database and prefix: a change made through either must reach both planners. */
let other: DispatcherUnderTest;
let redis: Redis;

beforeAll(async () => {
  other = await startDispatcher(suite.ds, suite.prefix, { allowHttp: true, allowPrivateNetworks: true });
  redis = new Redis(REDIS_URL);
});
afterAll(async () => {
  await other.close();
  redis.disconnect();
});

const replicas = () => [suite.dispatcher, other];
const fanOut = (replica: DispatcherUnderTest, tenant: string) =>
  replica.app.get(DeliveryPlanner).fanOut(tenant, webhookPayloadOf(runEvent(tenant, 'run.succeeded'))!);

describe('tenants without webhooks', () => {
  it('are planned without a lookup, and a webhook created or re-enabled is seen by every replica at once', async () => {
    const tenant = newTenant();
    for (const replica of replicas()) {
      expect(await fanOut(replica, tenant)).toEqual([]);
      expect((await replica.app.get(SubscribedTenants).current())?.has(tenant)).toBe(false);
    }
    // Answered by either replica: the next event of the tenant goes to the webhook, whichever replica plans it.
    const hook = receiver.endpoint();
    const webhook = await caller.ok<Webhook>(tenant, 'webhooks.webhooks.create', {
      body: { url: hook.url, events: ['job.completed'], secret: 'plain-secret-0123456789-abcdef' },
    });
    for (const replica of replicas())
      expect((await fanOut(replica, tenant)).map((p) => p.webhook_id)).toEqual([webhook.id]);

    // Paused, then resumed: once resumed, its events are planned again.
    await caller.ok(tenant, 'webhooks.webhooks.update', { id: webhook.id, body: { status: 'disabled' } });
    for (const replica of replicas()) expect(await fanOut(replica, tenant)).toEqual([]);
    await caller.ok(tenant, 'webhooks.webhooks.update', { id: webhook.id, body: { status: 'active' } });
    for (const replica of replicas())
      expect((await fanOut(replica, tenant)).map((p) => p.webhook_id)).toEqual([webhook.id]);
  });

  it('load the tenants again when Redis lost the token', async () => {
    const tenant = newTenant();
    const hook = receiver.endpoint();
    await caller.ok<Webhook>(tenant, 'webhooks.webhooks.create', {
      body: { url: hook.url, events: ['job.completed'], secret: 'plain-secret-0123456789-abcdef' },
    });
    await redis.del(`${suite.prefix}webhooks:subscriptions-token`);
    for (const replica of replicas()) {
      expect((await replica.app.get(SubscribedTenants).current())?.has(tenant)).toBe(true);
      expect(await fanOut(replica, tenant)).toHaveLength(1);
    }
  });
});
