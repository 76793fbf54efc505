import { Tagged, type Webhook } from '@conduit/contracts';
import { etagOf } from '@conduit/service-kit';
import type { WebhookEntity } from './webhook.entity.js';

/** The answer for a webhook: everything but the secret, which never leaves the service. */
export function toWebhook(row: WebhookEntity): Webhook {
  return {
    id: row.id,
    url: row.url,
    events: row.events,
    description: row.description,
    status: row.status,
    disabled_reason: row.disabledReason,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

export function webhookEtag(row: WebhookEntity): string {
  return etagOf(row.id, row.revision, row.updatedAt.toISOString());
}

export function taggedWebhook(row: WebhookEntity): Tagged<Webhook> {
  return new Tagged(toWebhook(row), webhookEtag(row));
}
