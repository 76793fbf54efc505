import { Inject, Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import type { Logger } from 'pino';
import { newId, type WebhookPayload } from '@conduit/contracts';
import { AttemptRunner } from './attempt-runner.js';
import { DISPATCHER_LOGGER } from '../common/tokens.js';

/** A first attempt just written. */
export interface PlannedAttempt {
  id: string;
  webhook_id: string;
  created_at: Date;
}

/**
 * Turns an event into attempts: the event's body and one pending first attempt per target webhook are written in
 * one transaction, then sent at once (AttemptRunner.startSoon). The event id is the events table's key, so an event seen twice plans nothing the
 * second time (consumers are idempotent on the event id). An attempt written but not queued (a crash, Redis down)
 * is queued later by the sweep.
 */
@Injectable()
export class DeliveryPlanner {
  constructor(
    private readonly ds: DataSource,
    private readonly runner: AttemptRunner,
    @Inject(DISPATCHER_LOGGER) private readonly logger: Logger,
  ) {}

  /** One attempt for every active webhook of the tenant subscribed to the event's kind. */
  async fanOut(tenantId: string, payload: WebhookPayload): Promise<PlannedAttempt[]> {
    return this.plan(tenantId, payload, async (m) => {
      const rows = (await m.query(`SELECT id FROM webhooks WHERE tenant_id = $1 AND status = 'active' AND events @> ARRAY[$2]::text[]`, [
        tenantId,
        payload.type,
      ])) as { id: string }[];
      return rows.map((r) => r.id);
    });
  }

  /** One attempt for that webhook alone (the `ping` of the test operation). */
  async single(tenantId: string, webhookId: string, payload: WebhookPayload): Promise<PlannedAttempt[]> {
    return this.plan(tenantId, payload, () => Promise.resolve([webhookId]));
  }

  private async plan(tenantId: string, payload: WebhookPayload, targets: (m: EntityManager) => Promise<string[]>): Promise<PlannedAttempt[]> {
    const now = new Date();
    const planned = await this.ds.transaction(async (m) => {
      const webhookIds = await targets(m);
      // Nothing subscribes: the event is not even recorded (a copy arriving later may find a new subscriber, which is harmless).
      if (webhookIds.length === 0) return [];
      const inserted = (await m.query(
        `INSERT INTO events (event_id, tenant_id, type, body, created_at) VALUES ($1, $2, $3, $4, $5) ON CONFLICT (event_id) DO NOTHING RETURNING event_id`,
        [payload.id, tenantId, payload.type, JSON.stringify(payload), now],
      )) as unknown[];
      if (inserted.length === 0) return [];
      const attempts = webhookIds.map((webhookId) => ({ id: newId('delivery'), webhook_id: webhookId, created_at: now }));
      await m.query(
        `INSERT INTO deliveries (id, tenant_id, webhook_id, event_id, event_type, attempt, status, due_at, created_at)
         SELECT a.id, $2, a.webhook_id, $3, $4, 1, 'pending', $5, $5 FROM unnest($1::text[], $6::text[]) AS a(id, webhook_id)`,
        [attempts.map((a) => a.id), tenantId, payload.id, payload.type, now, attempts.map((a) => a.webhook_id)],
      );
      return attempts;
    });
    try {
      await this.runner.startSoon(planned.map((a) => a.id));
    } catch (err) {
      this.logger.warn({ err, event_id: payload.id }, 'could not queue new deliveries; the sweep queues them');
    }
    return planned;
  }
}
