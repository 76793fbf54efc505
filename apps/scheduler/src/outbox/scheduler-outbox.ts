import type { EntityManager } from 'typeorm';
import type { OutboxRow } from '@conduit/outbox';
import { QUEUES, type RunCommand, type RunEvent } from '@conduit/contracts';
import type { OutboxOptions, QueueProducers } from '@conduit/service-kit';
import type { SchedulerSettings } from '../scheduler-settings.js';

/** Where the scheduler's outbox rows go: run commands to `runs`, run events to monitoring and the webhook dispatcher. */
async function publish(row: OutboxRow, producers: QueueProducers, m: EntityManager): Promise<void> {
  if (row['kind'] === 'run_command') {
    // Holding the run row (FOR SHARE) orders this against a cancel: a run canceled before it was published is
    // never enqueued, and a cancel that commits after it finds the queue job to remove.
    const [run] = await m.query<{ status: string }[]>(`SELECT status FROM runs WHERE id = $1 FOR SHARE`, [
      row['run_id'],
    ]);
    if (run?.status !== 'queued') return;
    await producers.of(QUEUES.runs).add('run', row.payload as RunCommand, { jobId: row.message_id });
    return;
  }
  const event = row.payload as RunEvent;
  // add() rather than addBulk(), for jobId deduplication.
  await producers.of(QUEUES.eventsMonitoring).add(event.type, event, { jobId: row.message_id });
  await producers.of(QUEUES.eventsWebhooks).add(event.type, event, { jobId: row.message_id });
}

/** The scheduler's outbox for QueuesModule: relayed when `background.relay` is on. */
export function schedulerOutbox(settings: SchedulerSettings): OutboxOptions {
  return { enabled: settings.background.relay, sweepMs: settings.outboxSweepMs, columns: ['kind', 'run_id'], publish };
}
