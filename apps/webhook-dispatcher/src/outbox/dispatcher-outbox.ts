import type { OutboxRow } from '@conduit/outbox';
import { QUEUES, type WebhookDisabledEvent, type WebhookEnabledEvent } from '@conduit/contracts';
import type { OutboxJob, OutboxOptions } from '@conduit/service-kit';
import type { DispatcherSettings } from '../dispatcher-settings.js';

/** Where the dispatcher's outbox rows go: webhook.disabled and webhook.enabled events to monitoring. */
function jobsOf(rows: OutboxRow[]): OutboxJob[] {
  return rows.map((row) => {
    const event = row.payload as WebhookDisabledEvent | WebhookEnabledEvent;
    return { queue: QUEUES.eventsMonitoring, name: event.type, data: event, opts: { jobId: row.message_id } };
  });
}

/** The dispatcher's outbox for QueuesModule: relayed when `background.relay` is on. */
export function dispatcherOutbox(settings: DispatcherSettings): OutboxOptions {
  return { enabled: settings.background.relay, sweepMs: settings.sweepMs, jobsOf };
}
