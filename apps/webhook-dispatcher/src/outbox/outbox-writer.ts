import type { EntityManager } from 'typeorm';
import type { WebhookDisabledEvent } from '@conduit/contracts';
import { writeOutbox } from '@conduit/outbox';

/** A webhook.disabled event for monitoring, published only if the caller's transaction commits. */
export function addDisabledEvent(m: EntityManager, event: WebhookDisabledEvent): Promise<void> {
  return writeOutbox(m, { message_id: event.event_id, payload: event, created_at: event.created_at });
}
