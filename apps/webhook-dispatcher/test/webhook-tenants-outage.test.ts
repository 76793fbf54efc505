// A webhook create whose tenant Redis takes before the insert but not after the commit (Redis gone in between) is a
// 503 that leaves nothing: answered as made, the webhook could miss events (the publishers' set may have been lost
// and written again from a table without it, webhook-tenants.ts).
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { AppError, statusOf, type WebhookCreate } from '@conduit/contracts';
import { SecretBox, sealFieldsForTransit } from '@conduit/secrets';
import { WEBHOOK_TENANTS_KEY } from '@conduit/service-kit';
import { startOwnRedis, waitFor, type OwnRedis } from '@conduit/testing';
import { useDispatcherSuite } from './support/dispatcher-suite.js';
import { TEST_SECRETS_KEY, startDispatcher, type DispatcherUnderTest } from './support/dispatcher-app.js';
import { newTenant, whileWebhooksLocked } from './support/db.js';
import { WebhooksService } from '../src/webhooks/webhooks.service.js';

const suite = useDispatcherSuite({ dispatcher: false });
let redis: OwnRedis;
let dispatcher: DispatcherUnderTest;

beforeAll(async () => {
  redis = await startOwnRedis();
  // Its queues and the publishers' set on a Redis of the test's own, which it kills; nothing runs in the background.
  dispatcher = await startDispatcher(suite.ds, suite.prefix, {
    redisUrl: redis.url,
    allowHttp: true,
    allowPrivateNetworks: true,
    background: { events: false, deliveries: false, relay: false, sweep: false },
  });
}, 60_000);

/** Whether the test killed its Redis and has not started it again. */
let down = false;

afterAll(async () => {
  // Back first, so that the app's queues close cleanly.
  if (down) await redis.start();
  await dispatcher?.close();
  await redis?.destroy();
}, 60_000);

describe('a webhook create whose tenant cannot be added once committed', () => {
  it('is a 503 naming Redis, and leaves no webhook', async () => {
    const tenant = newTenant();
    const body = sealFieldsForTransit(
      new SecretBox(TEST_SECRETS_KEY),
      { url: 'http://127.0.0.1:9/hook', events: ['job.completed'], secret: 'plain-secret-0123456789-abcdef' },
      ['secret'],
      tenant,
      'webhook',
    );
    // The insert waits on the lock, after the first add: Redis goes away then.
    const { outcome } = await whileWebhooksLocked(suite.ds, async () => {
      const started = dispatcher.app
        .get(WebhooksService)
        .create(tenant, body as unknown as WebhookCreate)
        .then(
          () => null,
          (err: unknown) => err,
        );
      const client = redis.client();
      await waitFor(async () => (await client.sismember(`${suite.prefix}${WEBHOOK_TENANTS_KEY}`, tenant)) === 1, {
        what: 'the tenant added before the insert',
      });
      await redis.kill();
      down = true;
      return { outcome: started };
    });
    const err = await outcome;
    // Back at once: the app's queues log every failed reconnect meanwhile.
    await redis.start();
    down = false;
    expect(err).toBeInstanceOf(AppError);
    expect(statusOf((err as AppError).code)).toBe(503);
    expect((err as AppError).dependency).toBe('redis');
    expect(await suite.ds.query(`SELECT id FROM webhooks WHERE tenant_id = $1`, [tenant])).toEqual([]);
  });
});
