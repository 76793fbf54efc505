import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { Logger } from 'pino';
import { newId, type WebhookPayload } from '@conduit/contracts';
import { AttemptRunner } from './attempt-runner.js';
import type { ClaimedAttempt } from './claimed-attempt.js';
import { DispatcherQueues } from '../queues/dispatcher-queues.js';
import { returnedRows } from '../common/returned-rows.js';
import { DISPATCHER_LOGGER } from '../common/tokens.js';

/** A first attempt just written. */
export interface PlannedAttempt {
  id: string;
  webhook_id: string;
  created_at: Date;
}

/** A webhook an event goes to, with what sending to it needs. */
interface Target {
  id: string;
  url: string;
  status: 'active' | 'disabled';
  secret_sealed: string;
}

/**
 * Turns an event into attempts: the event's body and one pending first attempt per target webhook are written in
 * one statement. As many as this process has free sending slots are written already claimed and sent at once (no
 * claim round trip, no queue hop); the rest are queued. The event id is the events table's key, so an event seen
 * twice plans nothing the second time (consumers are idempotent on the event id). An attempt written but not queued
 * (a crash, Redis down), or claimed by a process that died, is queued later by the sweep.
 */
@Injectable()
export class DeliveryPlanner {
  constructor(
    private readonly ds: DataSource,
    private readonly runner: AttemptRunner,
    private readonly queues: DispatcherQueues,
    @Inject(DISPATCHER_LOGGER) private readonly logger: Logger,
  ) {}

  /** One attempt for every active webhook of the tenant subscribed to the event's kind. */
  async fanOut(tenantId: string, payload: WebhookPayload): Promise<PlannedAttempt[]> {
    const targets = (await this.ds.query(
      `SELECT id, url, status, secret_sealed FROM webhooks WHERE tenant_id = $1 AND status = 'active' AND events @> ARRAY[$2]::text[]`,
      [tenantId, payload.type],
    )) as Target[];
    return this.plan(tenantId, payload, targets);
  }

  /** One attempt for that webhook alone (the `ping` of the test operation). */
  async single(tenantId: string, webhookId: string, payload: WebhookPayload): Promise<PlannedAttempt[]> {
    const targets = (await this.ds.query(`SELECT id, url, status, secret_sealed FROM webhooks WHERE id = $1 AND tenant_id = $2`, [
      webhookId,
      tenantId,
    ])) as Target[];
    return this.plan(tenantId, payload, targets);
  }

  private async plan(tenantId: string, payload: WebhookPayload, targets: Target[]): Promise<PlannedAttempt[]> {
    // Nothing subscribes: the event is not even recorded (a copy arriving later may find a new subscriber, which is harmless).
    if (targets.length === 0) return [];
    const now = new Date();
    const body = JSON.stringify(payload);
    const slots = await this.runner.reserveSlots(targets.length);
    const attempts = targets.map((t, i) => ({ id: newId('delivery'), target: t, claimed: i < slots }));
    let written: Set<string>;
    try {
      // One statement, so the event and its attempts commit together. The join skips a webhook deleted meanwhile.
      const rows = returnedRows<{ id: string }>(
        await this.ds.query(
          `WITH e AS (
             INSERT INTO events (event_id, tenant_id, type, body, created_at) VALUES ($1, $2, $3, $4, $5)
             ON CONFLICT (event_id) DO NOTHING RETURNING event_id
           )
           INSERT INTO deliveries (id, tenant_id, webhook_id, event_id, event_type, attempt, status, due_at, claimed_at, created_at)
           SELECT a.id, $2, a.webhook_id, e.event_id, $3, 1, 'pending', $5, CASE WHEN a.claimed THEN $5::timestamptz END, $5
             FROM e CROSS JOIN unnest($6::text[], $7::text[], $8::boolean[]) AS a(id, webhook_id, claimed)
             JOIN webhooks w ON w.id = a.webhook_id
           RETURNING id`,
          [payload.id, tenantId, payload.type, body, now, attempts.map((a) => a.id), attempts.map((a) => a.target.id), attempts.map((a) => a.claimed)],
        ),
      );
      written = new Set(rows.map((r) => r.id));
    } catch (err) {
      this.runner.releaseSlots(slots);
      throw err;
    }
    const planned = attempts.filter((a) => written.has(a.id));
    const claimed = planned.filter((a) => a.claimed);
    this.runner.releaseSlots(slots - claimed.length);
    this.runner.sendClaimed(claimed.map((a) => this.claimedAttempt(tenantId, payload, body, a.id, a.target)));
    try {
      await this.queues.enqueueDeliveries(planned.filter((a) => !a.claimed).map((a) => ({ id: a.id, delayMs: 0 })));
    } catch (err) {
      this.logger.warn({ err, event_id: payload.id }, 'could not queue new deliveries; the sweep queues them');
    }
    return planned.map((a) => ({ id: a.id, webhook_id: a.target.id, created_at: now }));
  }

  private claimedAttempt(tenantId: string, payload: WebhookPayload, body: string, id: string, t: Target): ClaimedAttempt {
    return {
      id,
      tenant_id: tenantId,
      webhook_id: t.id,
      event_id: payload.id,
      event_type: payload.type,
      attempt: 1,
      url: t.url,
      webhook_status: t.status,
      secret_sealed: t.secret_sealed,
      body,
    };
  }
}
