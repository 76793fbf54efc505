import { describe, expect, it } from '@jest/globals';
import { useDispatcherSuite } from './support/dispatcher-suite.js';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { QUEUES, type Delivery, type Page, type Webhook } from '@conduit/contracts';
import { newTenant } from './support/db.js';
import { unbatchedJobs, type QueuedJob, type TenantSlots } from '@conduit/service-kit';
import { Receiver, silentListener, waitFor, type Received, type Responder } from '@conduit/testing';
import { DeliveryPlanner } from '../src/deliveries/delivery-planner.js';
import { AttemptRunner } from '../src/deliveries/attempt-runner.js';
import { webhookPayloadOf } from '../src/deliveries/event-payload.js';
import { alertEvent, runEvent } from './support/events.js';

const PLAIN_SECRET = 'plain-secret-0123456789-abcdef';
const WHSEC_SECRET = `whsec_${Buffer.from('0123456789abcdef0123456789abcdef').toString('base64')}`;
const SCHEDULE = [200, 400, 800];
const DISABLE_AFTER_MS = 60_000;
const suite = useDispatcherSuite({
  dispatcher: {
    allowHttp: true,
    allowPrivateNetworks: true,
    retryScheduleMs: SCHEDULE,
    timeoutMs: 1000,
    disableAfterMs: DISABLE_AFTER_MS,
  },
  queues: [QUEUES.eventsMonitoring],
});
const { caller, receiver, events } = suite;
const monitoring = suite.queue(QUEUES.eventsMonitoring);

async function createWebhook(
  tenant: string,
  url: string,
  opts: { events?: string[]; secret?: string } = {},
): Promise<Webhook> {
  return caller.ok<Webhook>(tenant, 'webhooks.webhooks.create', {
    body: { url, events: opts.events ?? ['job.completed', 'job.failed'], secret: opts.secret ?? PLAIN_SECRET },
  });
}

async function deliveries(tenant: string, webhookId: string): Promise<Delivery[]> {
  return (
    await caller.ok<Page<Delivery>>(tenant, 'webhooks.deliveries.list', {
      webhook_id: webhookId,
      query: { limit: 200 },
    })
  ).data;
}

/** Polls until the webhook is disabled, and answers it. */
function disabledWebhook(tenant: string, id: string): Promise<Webhook> {
  return waitFor(
    async () => {
      const webhook = await caller.ok<Webhook>(tenant, 'webhooks.webhooks.get', { id });
      return webhook.status === 'disabled' && webhook;
    },
    { what: 'the webhook disabled' },
  );
}

/** What the dispatcher announced to monitoring about the webhook (disabled, enabled), still waiting there. */
async function announcementsOf(webhookId: string): Promise<QueuedJob[]> {
  const jobs = unbatchedJobs(await monitoring.getJobs(['waiting']));
  return jobs.filter((job) => (job.data as { webhook?: { id: string } }).webhook?.id === webhookId);
}

/** Polls until monitoring has an announcement about the webhook that `matches`, and answers it. */
function announcement(webhookId: string, matches: (job: QueuedJob) => boolean = () => true): Promise<QueuedJob> {
  return waitFor(async () => (await announcementsOf(webhookId)).find(matches), {
    what: `an announcement about ${webhookId} on events.monitoring`,
  });
}

function endpoint(responder?: Responder) {
  return receiver.endpoint(responder);
}

function verify(secret: string, req: Received): unknown {
  return new StandardWebhook(
    secret.startsWith('whsec_') ? secret : Buffer.from(secret, 'utf8').toString('base64'),
  ).verify(req.body, req.headers);
}

describe('fan-out and signed delivery', () => {
  it('delivers a job.completed signed with a plain secret and with a whsec_ secret, each verifying with standardwebhooks', async () => {
    const t = newTenant();
    const plain = endpoint();
    const whsec = endpoint();
    const unsubscribed = endpoint();
    await createWebhook(t, plain.url);
    await createWebhook(t, whsec.url, { secret: WHSEC_SECRET });
    await createWebhook(t, unsubscribed.url, { events: ['job.started'] });
    const other = endpoint();
    await createWebhook(newTenant(), other.url);

    const event = runEvent(t, 'run.succeeded');
    await events.publish(event);
    const [got] = await waitFor(() => receiver.requests(plain.path).length === 1 && receiver.requests(plain.path), {
      what: 'the plain-secret delivery',
    });
    const [gotWhsec] = await waitFor(
      () => receiver.requests(whsec.path).length === 1 && receiver.requests(whsec.path),
      { what: 'the whsec delivery' },
    );

    expect(verify(PLAIN_SECRET, got!)).toEqual({
      id: event.event_id,
      type: 'job.completed',
      created_at: event.created_at,
      data: {
        job_id: event.run.job_id,
        run_id: event.run.id,
        pipeline_id: event.run.pipeline_id,
        status: 'succeeded',
        trigger: 'manual',
        started_at: event.run.started_at,
        finished_at: event.run.finished_at,
        duration_ms: 2500,
        error: null,
      },
    });
    expect(got!.headers['webhook-id']).toBe(event.event_id);
    expect(got!.headers['content-type']).toBe('application/json');
    expect(verify(WHSEC_SECRET, gotWhsec!)).toMatchObject({ id: event.event_id, type: 'job.completed' });
    // A wrong key does not verify: the signature really depends on the secret.
    expect(() => verify(PLAIN_SECRET, gotWhsec!)).toThrow();
    // Let any stray delivery arrive before checking that none went where it should not.
    await new Promise((r) => setTimeout(r, 300));
    expect(receiver.requests(unsubscribed.path)).toHaveLength(0);
    expect(receiver.requests(other.path)).toHaveLength(0);
  });

  it('delivers an event seen twice once, skips run.queued, and sends alerts with the alert as data', async () => {
    const t = newTenant();
    const hook = endpoint();
    const webhook = await createWebhook(t, hook.url, { events: ['job.failed', 'job.started', 'alert.opened'] });
    const failed = runEvent(t, 'run.failed');
    await events.publish(runEvent(t, 'run.queued'));
    await events.publish(failed);
    await waitFor(() => receiver.requests(hook.path).length === 1, { what: 'the first copy' });
    await events.publish(failed);
    const alert = alertEvent(t, 'alert.opened');
    await events.publish(alert);
    await waitFor(() => receiver.requests(hook.path).length === 2, { what: 'the alert' });
    // A window in which a second copy of the failed event would arrive if it were delivered twice.
    await new Promise((r) => setTimeout(r, 300));
    const bodies = receiver
      .requests(hook.path)
      .map((r) => verify(PLAIN_SECRET, r) as { type: string; data: Record<string, unknown> });
    expect(bodies.map((b) => b.type)).toEqual(['job.failed', 'alert.opened']);
    expect(bodies[0]!.data).toMatchObject({
      status: 'failed',
      error: { message: 'Binder Error: no such table', node_id: 'clean' },
    });
    expect(bodies[1]!.data).toEqual(alert.alert);
    const list = await deliveries(t, webhook.id);
    expect(list.map((d) => [d.event_type, d.attempt, d.status, d.status_code])).toEqual([
      ['alert.opened', 1, 'succeeded', 200],
      ['job.failed', 1, 'succeeded', 200],
    ]);
    expect(list[0]!.latency_ms).toEqual(expect.any(Number));
  });

  it('sends a ping on test', async () => {
    const t = newTenant();
    const hook = endpoint();
    const webhook = await createWebhook(t, hook.url);
    const first = await caller.ok<Delivery>(t, 'webhooks.webhooks.test', { id: webhook.id });
    expect(first).toMatchObject({ webhook_id: webhook.id, event_type: 'ping', attempt: 1, status: 'pending' });
    const [got] = await waitFor(() => receiver.requests(hook.path).length === 1 && receiver.requests(hook.path), {
      what: 'the ping',
    });
    expect(verify(PLAIN_SECRET, got!)).toMatchObject({
      id: first.event_id,
      type: 'ping',
      data: { webhook_id: webhook.id },
    });
  });
});

describe('planning in batches', () => {
  it('plans events arriving together in one batch: each once, each to its own tenant, a bad one failing alone', async () => {
    const [a, b] = [newTenant(), newTenant()];
    const hookA = endpoint();
    const hookB = endpoint();
    const webhookA = await createWebhook(a, hookA.url);
    const webhookB = await createWebhook(b, hookB.url);
    const planner = suite.dispatcher.app.get(DeliveryPlanner);
    const payloadOf = (tenant: string) => webhookPayloadOf(runEvent(tenant, 'run.succeeded'))!;
    const [first, second, ofB] = [payloadOf(a), payloadOf(a), payloadOf(b)];
    // PostgreSQL refuses a NUL character in text: this event's statement fails, and only this event with it.
    const bad = { ...payloadOf(a), id: 'evt_with_\u0000_nul' };
    const results = await Promise.allSettled([
      planner.fanOut(a, first),
      planner.fanOut(a, second),
      planner.fanOut(a, first), // the same event again, in the same batch
      planner.fanOut(b, ofB),
      planner.fanOut(a, bad),
    ]);
    const planned = results.map((r) => (r.status === 'fulfilled' ? r.value.map((p) => p.webhook_id) : 'failed'));
    expect(planned).toEqual([[webhookA.id], [webhookA.id], [], [webhookB.id], 'failed']);
    await waitFor(() => receiver.requests(hookA.path).length === 2 && receiver.requests(hookB.path).length === 1, {
      what: 'the three deliveries',
    });
    const ids = (path: string) =>
      receiver
        .requests(path)
        .map((r) => r.headers['webhook-id'])
        .sort();
    expect(ids(hookA.path)).toEqual([first.id, second.id].sort());
    expect(ids(hookB.path)).toEqual([ofB.id]);
  });

  it('keeps events beyond the free sending slots for the next batch instead of queueing their attempts', async () => {
    const tenant = newTenant();
    const hooks = [endpoint(), endpoint(), endpoint()];
    for (const hook of hooks) await createWebhook(tenant, hook.url);
    const planner = suite.dispatcher.app.get(DeliveryPlanner);
    // 200 events to 3 webhooks: 600 attempts, more than the 500 admitted at once (100 POST slots, 5 admitted per slot).
    const payloads = Array.from({ length: 200 }, () => webhookPayloadOf(runEvent(tenant, 'run.succeeded'))!);
    const planned = await Promise.all(payloads.map((p) => planner.fanOut(tenant, p)));
    expect(planned.map((p) => p.length)).toEqual(payloads.map(() => 3));
    await waitFor(() => hooks.every((h) => receiver.requests(h.path).length === 200), { what: 'every attempt' });
    const [row] = await suite.ds.query<{ total: number; inline: number }[]>(
      `SELECT count(*)::int AS total, count(*) FILTER (WHERE claimed_at = created_at)::int AS inline FROM deliveries WHERE tenant_id = $1`,
      [tenant],
    );
    expect(row).toEqual({ total: 600, inline: 600 });
  });
});

describe('one tenant among others', () => {
  it("holds at most three quarters of the POST slots for one tenant's receivers that never answer: another's ping goes at once", async () => {
    const hung = await silentListener();
    try {
      const [a, b] = [newTenant(), newTenant()];
      const stuck = await createWebhook(a, `http://127.0.0.1:${hung.port}/never`);
      // More test pings than the 100 POST slots, at once: each would hold its slot for the whole timeout. (One after
      // the other, on a busy machine, they came slower than their 1 s timeouts freed the slots: a never held 75.)
      await Promise.all(
        Array.from({ length: 150 }, () => caller.ok<Delivery>(a, 'webhooks.webhooks.test', { id: stuck.id })),
      );
      // Tenant a's open POSTs, sampled every 5 ms: its pings time out after the suite's 1 s all at once and the next
      // ones of its queue then take the slots, so a count taken at one instant may fall in that gap (3 seen in CI on a
      // busy machine, 70 before): what a held is the most it held in the second before tenant b's ping arrived.
      const held: { at: number; open: number }[] = [];
      const sampler = setInterval(() => held.push({ at: Date.now(), open: hung.openConnections() }), 5);
      try {
        await waitFor(() => hung.openConnections() >= 75, {
          what: "tenant a's pings to hold what they may of the slots",
        });
        let bArrivedAt = 0;
        const hook = endpoint(() => {
          bArrivedAt = Date.now();
          return { status: 200 };
        });
        const webhook = await createWebhook(b, hook.url);
        await caller.ok<Delivery>(b, 'webhooks.webhooks.test', { id: webhook.id });
        await waitFor(() => receiver.requests(hook.path).length === 1, { what: "tenant b's ping" });
        const heldBeforeB = Math.max(
          ...held.filter((h) => h.at >= bArrivedAt - 1000 && h.at <= bArrivedAt).map((h) => h.open),
        );
        // Tenant b's ping went while tenant a's pings held most of their three quarters (never more than 75, below: the
        // last quarter of the slots stays for other tenants; the queue's worker bounds its attempts the same way:
        // queue-fairness.test.ts).
        expect(heldBeforeB).toBeGreaterThanOrEqual(50);
      } finally {
        clearInterval(sampler);
      }
      const runner = suite.dispatcher.app.get<AttemptRunner, { tenantSlots: TenantSlots }>(AttemptRunner);
      expect(runner.tenantSlots.inUse(a)).toBeLessThanOrEqual(75);
    } finally {
      await hung.close();
    }
  });
});

describe('retries', () => {
  it('retries 500 three times, then succeeds on the fourth attempt with the same webhook-id', async () => {
    const t = newTenant();
    const hook = endpoint((n) => ({ status: n < 3 ? 500 : 200 }));
    const webhook = await createWebhook(t, hook.url);
    const event = runEvent(t, 'run.succeeded');
    await events.publish(event);
    const got = await waitFor(() => receiver.requests(hook.path).length === 4 && receiver.requests(hook.path), {
      what: 'the fourth attempt',
      timeoutMs: 15_000,
    });
    expect(new Set(got.map((r) => r.headers['webhook-id']))).toEqual(new Set([event.event_id]));
    for (const r of got) expect(verify(PLAIN_SECRET, r)).toMatchObject({ id: event.event_id });
    // The gaps follow the schedule (200, 400, 800 ms), never shorter.
    const gaps = got.slice(1).map((r, i) => r.at - got[i]!.at);
    gaps.forEach((gap, i) => expect(gap).toBeGreaterThanOrEqual(SCHEDULE[i]! - 20));
    const list = await waitFor(
      async () => {
        const l = await deliveries(t, webhook.id);
        return l[0]?.status === 'succeeded' && l;
      },
      { what: 'the success recorded' },
    );
    expect(list.map((d) => [d.attempt, d.status, d.status_code])).toEqual([
      [4, 'succeeded', 200],
      [3, 'failed', 500],
      [2, 'failed', 500],
      [1, 'failed', 500],
    ]);
    for (const failed of list.slice(1)) {
      expect(failed.error).toBe('the receiver answered 500');
      expect(failed.next_retry_at).toEqual(expect.any(String));
    }
    expect(list[0]!.next_retry_at).toBeNull();
  });

  it('honours a Retry-After longer than the schedule', async () => {
    const t = newTenant();
    const hook = endpoint((n) => (n === 0 ? { status: 503, headers: { 'retry-after': '2' } } : { status: 200 }));
    await createWebhook(t, hook.url);
    await events.publish(runEvent(t, 'run.succeeded'));
    const got = await waitFor(() => receiver.requests(hook.path).length === 2 && receiver.requests(hook.path), {
      what: 'the retry',
      timeoutMs: 10_000,
    });
    expect(got[1]!.at - got[0]!.at).toBeGreaterThanOrEqual(1950);
  });

  it('gives up after the schedule, and counts a 301 as a failure without following it', async () => {
    const t = newTenant();
    const target = endpoint();
    const hook = endpoint(() => ({ status: 301, headers: { location: target.url } }));
    const webhook = await createWebhook(t, hook.url);
    await events.publish(runEvent(t, 'run.failed'));
    const list = await waitFor(
      async () => {
        const l = await deliveries(t, webhook.id);
        return l.length === 4 && l[0]!.status === 'failed' && l;
      },
      { what: 'the last attempt', timeoutMs: 15_000 },
    );
    expect(list.map((d) => [d.attempt, d.status_code])).toEqual([
      [4, 301],
      [3, 301],
      [2, 301],
      [1, 301],
    ]);
    expect(list[0]!.error).toMatch(/redirects are not followed/);
    expect(list[0]!.next_retry_at).toBeNull();
    expect(receiver.requests(target.path)).toHaveLength(0);
  });

  it('fails an attempt that gets no answer within the timeout', async () => {
    const t = newTenant();
    const hook = endpoint((n) => (n === 0 ? 'hang' : { status: 200 }));
    const webhook = await createWebhook(t, hook.url);
    await events.publish(runEvent(t, 'run.succeeded'));
    const list = await waitFor(
      async () => {
        const l = await deliveries(t, webhook.id);
        return l[0]?.status === 'succeeded' && l;
      },
      { what: 'the retry after the timeout', timeoutMs: 10_000 },
    );
    expect(list.map((d) => [d.attempt, d.status])).toEqual([
      [2, 'succeeded'],
      [1, 'failed'],
    ]);
    expect(list[1]!.error).toBe('timed out after 1000 ms without an answer');
    expect(list[1]!.latency_ms).toBeGreaterThanOrEqual(1000);
    expect(list[1]!.latency_ms).toBeLessThan(2000);
  });

  it('delivers every event to a receiver that was down for a while', async () => {
    const t = newTenant();
    const down = new Receiver();
    await down.start();
    const port = down.port;
    await down.stop(); // nothing listens on the port now: connections are refused
    const url = `http://127.0.0.1:${port}/back-soon`;
    const webhook = await createWebhook(t, url);
    const sent = [runEvent(t, 'run.succeeded'), runEvent(t, 'run.failed'), runEvent(t, 'run.succeeded')];
    for (const e of sent) await events.publish(e);
    await waitFor(async () => (await deliveries(t, webhook.id)).filter((d) => d.status === 'failed').length >= 3, {
      what: 'first refusals',
    });
    const { createServer } = await import('node:http');
    const seen: string[] = [];
    const server = createServer((req, res) => {
      seen.push(String(req.headers['webhook-id']));
      req.resume();
      req.on('end', () => res.writeHead(204).end());
    });
    await new Promise<void>((ok) => server.listen(port, '127.0.0.1', ok));
    try {
      await waitFor(() => new Set(seen).size === 3, { what: 'every event', timeoutMs: 10_000 });
      expect(new Set(seen)).toEqual(new Set(sent.map((e) => e.event_id)));
      const errors = (await deliveries(t, webhook.id)).filter((d) => d.status === 'failed').map((d) => d.error);
      expect(errors[0]).toMatch(/ECONNREFUSED/);
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });
});

describe('disabling', () => {
  it('disables a webhook answering 410 and announces it to monitoring', async () => {
    const t = newTenant();
    const hook = endpoint(() => ({ status: 410 }));
    const webhook = await createWebhook(t, hook.url);
    await events.publish(runEvent(t, 'run.succeeded'));
    const disabled = await disabledWebhook(t, webhook.id);
    expect(disabled.disabled_reason).toBe('gone');
    const announced = await announcement(webhook.id);
    expect(announced.name).toBe('webhook.disabled');
    expect(announced.id).toBe((announced.data as { event_id: string }).event_id);
    expect(announced.data).toMatchObject({
      tenant_id: t,
      webhook: { id: webhook.id, url: hook.url },
      reason: expect.stringMatching(/^gone/),
    });
    // No retry after a 410, and no later event reaches a disabled webhook.
    await events.publish(runEvent(t, 'run.succeeded'));
    // A window in which a retry or the later event would arrive: proves none does.
    await new Promise((r) => setTimeout(r, 600));
    expect(receiver.requests(hook.path)).toHaveLength(1);
    expect((await deliveries(t, webhook.id)).map((d) => [d.status, d.status_code, d.next_retry_at])).toEqual([
      ['failed', 410, null],
    ]);

    // Set back to active by its owner: monitoring hears it and resolves the alert.
    const reenabled = await caller.ok<Webhook>(t, 'webhooks.webhooks.update', {
      id: webhook.id,
      body: { status: 'active' },
    });
    expect(reenabled.status).toBe('active');
    const enabled = await announcement(webhook.id, (job) => job.name === 'webhook.enabled');
    expect(enabled.data).toMatchObject({ tenant_id: t, webhook: { id: webhook.id, url: hook.url } });
  });

  it('announces nothing when a webhook paused by hand is resumed: it had no alert', async () => {
    const t = newTenant();
    const webhook = await createWebhook(t, endpoint().url);
    await caller.ok<Webhook>(t, 'webhooks.webhooks.update', { id: webhook.id, body: { status: 'disabled' } });
    await caller.ok<Webhook>(t, 'webhooks.webhooks.update', { id: webhook.id, body: { status: 'active' } });
    // A window in which an announcement would be enqueued: proves none is.
    await new Promise((r) => setTimeout(r, 600));
    expect(await announcementsOf(webhook.id)).toEqual([]);
  });

  it('disables a webhook that kept failing for the configured time', async () => {
    const t = newTenant();
    const hook = endpoint(() => ({ status: 500 }));
    const webhook = await createWebhook(t, hook.url);
    // The webhook has been failing since long before this event (as after days of failures).
    await suite.ds.query(`UPDATE webhooks SET failing_since = $2 WHERE id = $1`, [
      webhook.id,
      new Date(Date.now() - DISABLE_AFTER_MS - 1000),
    ]);
    await events.publish(runEvent(t, 'run.succeeded'));
    const disabled = await disabledWebhook(t, webhook.id);
    expect(disabled.disabled_reason).toBe('failing');
    await announcement(webhook.id, (job) => /^failing/.test((job.data as { reason: string }).reason));
    expect(receiver.requests(hook.path)).toHaveLength(1);
  });

  it('a success ends the run of failures', async () => {
    const t = newTenant();
    const hook = endpoint();
    const webhook = await createWebhook(t, hook.url);
    await suite.ds.query(`UPDATE webhooks SET failing_since = now() - interval '1 hour' WHERE id = $1`, [webhook.id]);
    await events.publish(runEvent(t, 'run.succeeded'));
    await waitFor(
      async () => {
        const [row] = await suite.ds.query<
          {
            failing_since: Date | null;
          }[]
        >(`SELECT failing_since FROM webhooks WHERE id = $1`, [webhook.id]);
        return row?.failing_since === null;
      },
      { what: 'the failures forgotten' },
    );
  });
});

describe('secrecy', () => {
  it('never logs a secret', () => {
    const logs = suite.dispatcher.logs();
    expect(logs.length).toBeGreaterThan(0);
    expect(logs).not.toContain(PLAIN_SECRET);
    expect(logs).not.toContain(WHSEC_SECRET.slice('whsec_'.length));
  });
});
