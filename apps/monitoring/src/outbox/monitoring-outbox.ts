import type { OutboxRow } from '@conduit/outbox';
import { QUEUES, type AlertEvent } from '@conduit/contracts';
import type { OutboxJob, OutboxOptions } from '@conduit/service-kit';
import type { MonitoringSettings } from '../monitoring-settings.js';

/** Where monitoring's outbox rows go: alert events to the webhook dispatcher. */
function jobsOf(rows: OutboxRow[]): OutboxJob[] {
  return rows.map((row) => {
    const event = row.payload as AlertEvent;
    return { queue: QUEUES.eventsWebhooks, name: event.type, data: event, opts: { jobId: row.message_id } };
  });
}

/** Monitoring's outbox for QueuesModule: relayed when `background.relay` is on. */
export function monitoringOutbox(settings: MonitoringSettings): OutboxOptions {
  return { enabled: settings.background.relay, sweepMs: settings.outboxSweepMs, jobsOf };
}
