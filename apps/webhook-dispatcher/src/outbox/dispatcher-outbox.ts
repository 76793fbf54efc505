import type { OutboxRow } from '@conduit/outbox';
import { QUEUES, type WebhookDisabledEvent, type WebhookEnabledEvent } from '@conduit/contracts';
import type { OutboxOptions, QueueProducers } from '@conduit/service-kit';
import type { DispatcherSettings } from '../dispatcher-settings.js';

/** Where the dispatcher's outbox rows go: webhook.disabled and webhook.enabled events to monitoring. */
async function publish(row: OutboxRow, producers: QueueProducers): Promise<void> {
  const event = row.payload as WebhookDisabledEvent | WebhookEnabledEvent;
  // add() rather than addBulk(), for jobId deduplication.
  await producers.of(QUEUES.eventsMonitoring).add(event.type, event, { jobId: row.message_id });
}

/** The dispatcher's outbox for QueuesModule: relayed when `background.relay` is on. */
export function dispatcherOutbox(settings: DispatcherSettings): OutboxOptions {
  return { enabled: settings.background.relay, sweepMs: settings.sweepMs, publish };
}
