import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import type { Webhook } from '@conduit/contracts';
import { WEBHOOK_TENANTS_KEY, WebhookTenants } from '@conduit/service-kit';
import { waitFor } from '@conduit/testing';
import { useDispatcherSuite } from './support/dispatcher-suite.js';
import { startDispatcher, type DispatcherUnderTest } from './support/dispatcher-app.js';
import { newTenant, whileWebhooksLocked } from './support/db.js';
import { REDIS_URL } from './support/redis.js';
import { runEvent } from './support/events.js';
import { DeliveryPlanner } from '../src/deliveries/delivery-planner.js';
import { webhookPayloadOf } from '../src/deliveries/event-payload.js';
import { SubscribedTenants } from '../src/webhooks/subscribed-tenants.js';

const suite = useDispatcherSuite({ dispatcher: { allowHttp: true, allowPrivateNetworks: true } });
const { caller, receiver } = suite;
/** A second replica on the same database and prefix: a change made through either must reach both planners. */
let other: DispatcherUnderTest;

beforeAll(async () => {
  other = await startDispatcher(suite.ds, suite.prefix, { allowHttp: true, allowPrivateNetworks: true });
});
afterAll(async () => {
  await other.close();
});

const replicas = () => [suite.dispatcher, other];
const fanOut = (replica: DispatcherUnderTest, tenant: string) =>
  replica.app.get(DeliveryPlanner).fanOut(tenant, webhookPayloadOf(runEvent(tenant, 'run.succeeded'))!);
const plannedTo = async (replica: DispatcherUnderTest, tenant: string) =>
  (await fanOut(replica, tenant)).map((p) => p.webhook_id);
const createWebhook = (tenant: string) =>
  caller.ok<Webhook>(tenant, 'webhooks.webhooks.create', {
    body: { url: receiver.endpoint().url, events: ['job.completed'], secret: 'plain-secret-0123456789-abcdef' },
  });
const version = async () =>
  (await suite.ds.query<{ version: string }[]>(`SELECT version::text AS version FROM webhook_subscriptions_version`))[0]
    ?.version;

/** Each replica plans the tenant's next event with nothing, so its set is loaded and lacks the tenant. */
async function loadedWithout(tenant: string): Promise<void> {
  for (const replica of replicas()) {
    expect(await fanOut(replica, tenant)).toEqual([]);
    expect((await replica.app.get(SubscribedTenants).current())?.has(tenant)).toBe(false);
  }
}

describe('tenants without webhooks', () => {
  it('are planned without a lookup, and a webhook created or re-enabled is seen by every replica at once', async () => {
    const tenant = newTenant();
    await loadedWithout(tenant);
    // Answered by either replica: the next event of the tenant goes to the webhook, whichever replica plans it.
    const webhook = await createWebhook(tenant);
    for (const replica of replicas()) expect(await plannedTo(replica, tenant)).toEqual([webhook.id]);

    // Paused, then resumed: once resumed, its events are planned again.
    await caller.ok(tenant, 'webhooks.webhooks.update', { id: webhook.id, body: { status: 'disabled' } });
    await loadedWithout(tenant);
    await caller.ok(tenant, 'webhooks.webhooks.update', { id: webhook.id, body: { status: 'active' } });
    for (const replica of replicas()) expect(await plannedTo(replica, tenant)).toEqual([webhook.id]);

    await caller.ok(tenant, 'webhooks.webhooks.delete', { id: webhook.id });
    await loadedWithout(tenant);
  });

  it('see a webhook written by plain SQL (a replica of the version before) at their next batch', async () => {
    const tenant = newTenant();
    const webhook = await createWebhook(tenant);
    const [row] = await suite.ds.query<object[]>(`SELECT to_jsonb(w) AS row FROM webhooks w WHERE id = $1`, [
      webhook.id,
    ]);
    await suite.ds.query(`DELETE FROM webhooks WHERE id = $1`, [webhook.id]);
    await loadedWithout(tenant);
    // The same row back (its sealed secret is bound to its id), as an insert that no replica's code made.
    await suite.ds.query(`INSERT INTO webhooks SELECT * FROM jsonb_populate_record(NULL::webhooks, $1::jsonb)`, [
      JSON.stringify((row as { row: object }).row),
    ]);
    for (const replica of replicas()) expect(await plannedTo(replica, tenant)).toEqual([webhook.id]);

    await suite.ds.query(`UPDATE webhooks SET status = 'disabled' WHERE id = $1`, [webhook.id]);
    await loadedWithout(tenant);
    await suite.ds.query(`UPDATE webhooks SET status = 'active' WHERE id = $1`, [webhook.id]);
    for (const replica of replicas()) expect(await plannedTo(replica, tenant)).toEqual([webhook.id]);
  });

  it('are not loaded again for updates that leave every status as it was', async () => {
    const webhook = await createWebhook(newTenant());
    const before = await version();
    await suite.ds.query(`UPDATE webhooks SET failing_since = now() WHERE id = $1`, [webhook.id]);
    await suite.ds.query(`UPDATE webhooks SET failing_since = NULL, events = events WHERE id = $1`, [webhook.id]);
    expect(await version()).toBe(before);
  });
});

describe('the set of tenants with webhooks that the event publishers read', () => {
  let redis: Redis;
  let publisher: WebhookTenants;
  const key = () => `${suite.prefix}${WEBHOOK_TENANTS_KEY}`;
  beforeAll(() => {
    redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
    publisher = new WebhookTenants(redis, suite.prefix, { distrustMs: 0 });
  });
  afterAll(() => redis.disconnect());

  it("holds a webhook's tenant once its create is answered, and every tenant of the table after Redis lost it", async () => {
    const tenant = newTenant();
    const stranger = newTenant();
    // Each replica wrote the whole table at boot; the sweep writes it again.
    await waitFor(async () => (await publisher.subscribedAmong([stranger])) !== null, { what: 'the set complete' });
    await createWebhook(tenant);
    expect(await publisher.subscribedAmong([tenant, stranger])).toEqual(new Set([tenant]));

    // The tenant is in the set before its webhook's row can be seen: the insert held by a lock on the table meanwhile.
    const next = newTenant();
    // Wrapped: a promise answered by `during` would be awaited while the lock holds its insert.
    const { creating } = await whileWebhooksLocked(suite.ds, async () => {
      const started = createWebhook(next);
      await waitFor(async () => (await publisher.subscribedAmong([next]))?.has(next) === true, {
        what: 'the tenant added before its insert',
      });
      expect(await suite.ds.query(`SELECT 1 FROM webhooks WHERE tenant_id = $1`, [next])).toEqual([]);
      return { creating: started };
    });
    expect((await creating).id).toMatch(/^whk_/);

    // A webhook of a replica of the version before (plain SQL, no admit), then Redis loses the set: until a replica
    // writes the table again, publishers send every event; after it, the set holds both.
    const old = newTenant();
    const webhook = await createWebhook(tenant);
    const [row] = await suite.ds.query<{ row: Record<string, unknown> }[]>(
      `SELECT to_jsonb(w) AS row FROM webhooks w WHERE id = $1`,
      [webhook.id],
    );
    await suite.ds.query(`DELETE FROM webhooks WHERE id = $1`, [webhook.id]);
    await suite.ds.query(`INSERT INTO webhooks SELECT * FROM jsonb_populate_record(NULL::webhooks, $1::jsonb)`, [
      JSON.stringify({ ...row!.row, tenant_id: old }),
    ]);
    // Whatever write was under way at the loss (its read older than the insert, perhaps) lost its token with the set
    // and marks nothing: the set is complete again only by a write whose read came after the loss.
    await redis.del(key());
    await waitFor(async () => (await publisher.subscribedAmong([stranger])) !== null, {
      what: 'the set written again by a sweep',
    });
    expect(await publisher.subscribedAmong([tenant, old, stranger])).toEqual(new Set([tenant, old]));
  });
});
