import type { EntityManager } from 'typeorm';
import type { WebhookDisabledEvent } from '@conduit/contracts';

/** Writes the event inside the caller's transaction: published only if it commits, and always once it has. */
export async function addDisabledEvent(m: EntityManager, event: WebhookDisabledEvent): Promise<void> {
  await m.query(`INSERT INTO outbox (message_id, payload, created_at) VALUES ($1, $2, $3)`, [event.event_id, JSON.stringify(event), event.created_at]);
}
