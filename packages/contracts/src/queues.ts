/**
 * BullMQ queue names. These values are persisted in Redis: NEVER change one, only add new names.
 * Each consuming service has its own events queue; a publisher adds an event to each of them.
 */
export const QUEUES = {
  runs: 'runs',
  eventsScheduler: 'events.scheduler',
  eventsMonitoring: 'events.monitoring',
  eventsWebhooks: 'events.webhooks',
  logs: 'logs',
  webhookDeliveries: 'webhook-deliveries',
  schedulerTicks: 'scheduler-ticks',
} as const;

export type QueueName = (typeof QUEUES)[keyof typeof QUEUES];
