import type { EntityManager } from 'typeorm';
import type { WebhookDisabledEvent, WebhookEnabledEvent } from '@conduit/contracts';
import { newId } from '@conduit/service-kit';
import { addWebhookStatusEvent } from '../outbox/outbox-writer.js';
import { returnedRows } from '../common/returned-rows.js';

export type DisabledReason = 'gone' | 'failing';

const REASON_TEXT: Record<DisabledReason, string> = {
  gone: 'the receiver answered 410 Gone',
  failing: 'every delivery failed for too long',
};

/**
 * Disables an active webhook and announces it (webhook.disabled on events.monitoring, through the outbox, so the
 * change and its event commit together). Answers false when it was not active any more (another attempt won).
 */
export async function disableWebhook(
  m: EntityManager,
  webhookId: string,
  reason: DisabledReason,
  at: Date,
): Promise<boolean> {
  const [row] = returnedRows<{ tenant_id: string; url: string }>(
    await m.query(
      `UPDATE webhooks SET status = 'disabled', disabled_reason = $2, revision = revision + 1, updated_at = $3
     WHERE id = $1 AND status = 'active' RETURNING tenant_id, url`,
      [webhookId, reason, at],
    ),
  );
  if (!row) return false;
  const event: WebhookDisabledEvent = {
    event_id: newId('event'),
    type: 'webhook.disabled',
    created_at: at.toISOString(),
    tenant_id: row.tenant_id,
    webhook: { id: webhookId, url: row.url },
    reason: `${reason}: ${REASON_TEXT[reason]}`,
  };
  await addWebhookStatusEvent(m, event);
  return true;
}

/** Announces that a webhook disabled before is active again (in the transaction of that change): its alert is over. */
export async function announceReenabled(
  m: EntityManager,
  tenantId: string,
  webhookId: string,
  url: string,
  at: Date,
): Promise<void> {
  const event: WebhookEnabledEvent = {
    event_id: newId('event'),
    type: 'webhook.enabled',
    created_at: at.toISOString(),
    tenant_id: tenantId,
    webhook: { id: webhookId, url },
  };
  await addWebhookStatusEvent(m, event);
}
