import type { EntityManager } from 'typeorm';
import type { WebhookDisabledEvent, WebhookEnabledEvent } from '@conduit/contracts';
import { writeOutbox } from '@conduit/outbox';

/** A webhook.disabled or webhook.enabled event for monitoring, published only if the caller's transaction commits. */
export function addWebhookStatusEvent(
  m: EntityManager,
  event: WebhookDisabledEvent | WebhookEnabledEvent,
): Promise<void> {
  return writeOutbox(m, { message_id: event.event_id, payload: event, created_at: event.created_at });
}
