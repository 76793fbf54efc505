import type { EntityManager } from 'typeorm';
import type { AlertEvent } from '@conduit/contracts';
import { writeOutbox } from '@conduit/outbox';

/** An alert event for the webhook dispatcher, published only if the caller's transaction commits. */
export function addAlertEvent(m: EntityManager, event: AlertEvent): Promise<void> {
  return writeOutbox(m, { message_id: event.event_id, payload: event, created_at: event.created_at });
}
