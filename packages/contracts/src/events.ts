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
