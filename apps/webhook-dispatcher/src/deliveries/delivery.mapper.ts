import type { Delivery } from '@conduit/contracts';
import type { DeliveryEntity } from './delivery.entity.js';

export function toDelivery(row: DeliveryEntity): Delivery {
  return {
    id: row.id,
    webhook_id: row.webhookId,
    event_id: row.eventId,
    event_type: row.eventType,
    attempt: row.attempt,
    status: row.status,
    status_code: row.statusCode,
    latency_ms: row.latencyMs,
    error: row.error,
    next_retry_at: row.nextRetryAt?.toISOString() ?? null,
    created_at: row.createdAt.toISOString(),
  };
}
