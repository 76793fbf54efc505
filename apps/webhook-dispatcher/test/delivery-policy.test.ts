// The address of a webhook is checked again at delivery time, not only when the webhook is saved: a host whose
// address has become private since (DNS changed, or the operator tightened the policy) gets nothing.
import { afterAll, describe, expect, it } from '@jest/globals';
import { useDispatcherSuite } from './support/dispatcher-suite.js';
import type { Delivery, Page, Webhook } from '@conduit/contracts';
import { newTenant } from './support/db.js';
import { startDispatcher, type DispatcherUnderTest } from './support/dispatcher-app.js';
import { waitFor } from '@conduit/testing';
import { runEvent } from './support/events.js';

let dispatcher: DispatcherUnderTest | undefined;

// Declared before the suite's, so that the replica a test started stops before the schema it uses is dropped.
afterAll(async () => {
  await dispatcher?.close();
});

// No dispatcher of the suite's: each test starts the replicas whose policy it checks.
const suite = useDispatcherSuite({ dispatcher: false });
const { caller, receiver, events, prefix } = suite;

describe('the network policy at delivery time', () => {
  it('does not send to a host that now resolves to a loopback address, and records why', async () => {
    const tenant = newTenant();
    const hook = receiver.endpoint();
    // Saved while the policy let the host through (as a public address would pass)...
    dispatcher = await startDispatcher(suite.ds, prefix, {
      allowHttp: true,
      allowPrivateNetworks: true,
      retryScheduleMs: [60_000],
    });
    const webhook = await caller.ok<Webhook>(tenant, 'webhooks.webhooks.create', {
      body: { url: hook.url, events: ['job.completed'], secret: 'policy-secret-0123456789' },
    });
    await dispatcher.close();
    // ...and delivered by a replica under the default policy: the address is checked again before connecting.
    dispatcher = await startDispatcher(suite.ds, prefix, {
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
