import type { EntityManager } from 'typeorm';
import type { AlertEvent } from '@conduit/contracts';

/**
 * Writes an alert event inside the caller's transaction: it is published only if that commits, and always once it
 * has (the relay retries until BullMQ has it).
 */
export async function addAlertEvent(m: EntityManager, event: AlertEvent): Promise<void> {
  await m.query(`INSERT INTO outbox (message_id, payload, created_at) VALUES ($1, $2, $3)`, [event.event_id, event, new Date(event.created_at)]);
}
