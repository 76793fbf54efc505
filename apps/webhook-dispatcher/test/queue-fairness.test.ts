// The queue's worker (retries, attempts the sweep queues) bounds each tenant's share of its slots as the attempts sent
// at once do: one tenant's silent receivers must not hold every other tenant's retries behind theirs.
import { describe, expect, it } from '@jest/globals';
import type { Webhook } from '@conduit/contracts';
import { newId } from '@conduit/service-kit';
import { silentListener, waitFor } from '@conduit/testing';
import { useDispatcherSuite } from './support/dispatcher-suite.js';
import { newTenant } from './support/db.js';
import { DeliveryQueue } from '../src/deliveries/delivery-queue.js';

// A receiver's timeout long enough that the first attempts still wait on it while the test looks.
const suite = useDispatcherSuite({
  dispatcher: { allowHttp: true, allowPrivateNetworks: true, retryScheduleMs: [200], timeoutMs: 4000 },
});
const { caller, receiver } = suite;

async function createWebhook(tenant: string, url: string): Promise<Webhook> {
  return caller.ok<Webhook>(tenant, 'webhooks.webhooks.create', {
    body: { url, events: ['job.failed'], secret: 'fairness-secret-0123456789' },
  });
}

/**
 * `count` attempts of one event written as a failure writes its retry (pending, unclaimed, due now), past the retry
 * schedule so that each ends without planning another, then queued as the dispatcher queues them.
 */
async function queuedAttempts(tenant: string, webhookId: string, count: number): Promise<string[]> {
  const eventId = newId('event');
  const body = JSON.stringify({ id: eventId, type: 'job.failed', created_at: new Date().toISOString(), data: {} });
  await suite.ds.query(
    `INSERT INTO events (event_id, tenant_id, type, body, created_at) VALUES ($1, $2, 'job.failed', $3, now())`,
    [eventId, tenant, body],
  );
  const ids = Array.from({ length: count }, () => newId('delivery'));
  await suite.ds.query(
    `INSERT INTO deliveries (id, tenant_id, webhook_id, event_id, event_type, attempt, status, due_at, created_at)
     SELECT id, $2, $3, $4, 'job.failed', 10 + n, 'pending', now(), now() FROM unnest($1::text[]) WITH ORDINALITY AS x(id, n)`,
    [ids, tenant, webhookId, eventId],
  );
  await suite.dispatcher.app.get(DeliveryQueue).enqueue(ids.map((id) => ({ id, tenantId: tenant, delayMs: 0 })));
  return ids;
}

async function attemptsBy(ids: string[]): Promise<{ unclaimed: number; ended: number }> {
  const [row] = await suite.ds.query<{ unclaimed: number; ended: number }[]>(
    `SELECT count(*) FILTER (WHERE status = 'pending' AND claimed_at IS NULL)::int AS unclaimed,
            count(*) FILTER (WHERE status <> 'pending')::int AS ended
       FROM deliveries WHERE id = ANY($1)`,
    [ids],
  );
  return row!;
}

describe("the queue's worker, one tenant among others", () => {
  it("sends at most three quarters of its attempts of one tenant at once: another tenant's retry goes at once, the rest wait in the queue", async () => {
    const hung = await silentListener();
    try {
      const [a, b] = [newTenant(), newTenant()];
      const stuck = await createWebhook(a, `http://127.0.0.1:${hung.port}/never`);
      const hook = receiver.endpoint();
      const other = await createWebhook(b, hook.url);
      // The worker has 100 slots: tenant a's 80 retries may take 75 of them.
      const ids = await queuedAttempts(a, stuck.id, 80);
      await waitFor(() => hung.openConnections() >= 75, { what: "tenant a's attempts on its silent receiver" });
      await queuedAttempts(b, other.id, 1);
      await waitFor(() => receiver.requests(hook.path).length === 1, { what: "tenant b's retry" });
      // Tenant a's first attempts still wait on their receiver; its 5 others wait in the queue, their rows untouched.
      expect(hung.openConnections()).toBe(75);
      expect(await attemptsBy(ids)).toEqual({ unclaimed: 5, ended: 0 });
      // Once those time out, the 5 are sent: every attempt ends, once.
      await waitFor(async () => (await attemptsBy(ids)).ended === 80, {
        what: "every attempt of tenant a's to end",
        timeoutMs: 20_000,
      });
    } finally {
      await hung.close();
    }
  });
});
