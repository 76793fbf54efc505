import type { OutboxRow } from '@conduit/outbox';
import { QUEUES, type AlertEvent } from '@conduit/contracts';
import type { OutboxOptions, QueueProducers } from '@conduit/service-kit';
import type { MonitoringSettings } from '../monitoring-settings.js';

/** Where monitoring's outbox rows go: alert events to the webhook dispatcher. */
async function publish(row: OutboxRow, producers: QueueProducers): Promise<void> {
  const event = row.payload as AlertEvent;
  // add() rather than addBulk(), for jobId deduplication.
  await producers.of(QUEUES.eventsWebhooks).add(event.type, event, { jobId: row.message_id });
}

/** Monitoring's outbox for QueuesModule: relayed when `background.relay` is on. */
export function monitoringOutbox(settings: MonitoringSettings): OutboxOptions {
  return { enabled: settings.background.relay, sweepMs: settings.outboxSweepMs, publish };
}
