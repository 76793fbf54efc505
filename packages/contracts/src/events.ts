import { z } from 'zod';
import { runEventSchema, type RunEvent } from './run-messages.js';
import { ALERT_RULES, ALERT_SEVERITIES, ALERT_STATUSES } from './schemas/monitoring.js';

/** Event kinds a webhook can subscribe to (api.md, Webhook). */
export const WEBHOOK_EVENT_TYPES = [
  'job.started',
  'job.completed',
  'job.failed',
  'job.canceled',
  'alert.opened',
  'alert.resolved',
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/**
 * The webhook kind each run event is delivered as; `run.queued` is none, so the scheduler does not send it to the
 * webhook dispatcher at all.
 */
export const WEBHOOK_KIND_OF_RUN_EVENT: Readonly<Partial<Record<RunEvent['type'], WebhookEventType>>> = {
  'run.started': 'job.started',
  'run.succeeded': 'job.completed',
  'run.failed': 'job.failed',
  'run.canceled': 'job.canceled',
};

const id = z.string().min(1).max(64);
const timestamp = z.string().min(1).max(40);

/** monitoring -> events.webhooks: an alert opened or resolved. */
export const alertEventSchema = z.strictObject({
  event_id: id,
  type: z.enum(['alert.opened', 'alert.resolved']),
  created_at: timestamp,
  tenant_id: id,
  alert: z.strictObject({
    id,
    job_id: id.nullable(),
    run_id: id.nullable(),
    webhook_id: id.nullable(),
    rule: z.enum(ALERT_RULES),
    severity: z.enum(ALERT_SEVERITIES),
    status: z.enum(ALERT_STATUSES),
    message: z.string().max(2000),
    occurrences: z.number().int().min(1),
    first_seen_at: timestamp,
    last_seen_at: timestamp,
    resolved_at: timestamp.nullable(),
  }),
});
export type AlertEvent = z.infer<typeof alertEventSchema>;

/** webhook-dispatcher -> events.monitoring: a webhook was disabled (410, or failing for days). */
export const webhookDisabledEventSchema = z.strictObject({
  event_id: id,
  type: z.literal('webhook.disabled'),
  created_at: timestamp,
  tenant_id: id,
  webhook: z.strictObject({ id, url: z.string().max(2048) }),
  reason: z.string().max(500),
});
export type WebhookDisabledEvent = z.infer<typeof webhookDisabledEventSchema>;

/** webhook-dispatcher -> events.monitoring: a disabled webhook was set back to active, which ends its alert. */
export const webhookEnabledEventSchema = z.strictObject({
  event_id: id,
  type: z.literal('webhook.enabled'),
  created_at: timestamp,
  tenant_id: id,
  webhook: z.strictObject({ id, url: z.string().max(2048) }),
});
export type WebhookEnabledEvent = z.infer<typeof webhookEnabledEventSchema>;

/** What arrives on events.monitoring. */
export const monitoringEventSchema = z.union([runEventSchema, webhookDisabledEventSchema, webhookEnabledEventSchema]);
export type MonitoringEvent = z.infer<typeof monitoringEventSchema>;

/** What arrives on events.webhooks. */
export const webhookSourceEventSchema = z.union([runEventSchema, alertEventSchema]);
export type WebhookSourceEvent = z.infer<typeof webhookSourceEventSchema>;

/** The body a webhook receives (api.md): `{ id, type, created_at, data }`. */
export interface WebhookPayload {
  id: string;
  type: WebhookEventType | 'ping';
  created_at: string;
  data: Record<string, unknown>;
}
