import type { EntityManager } from 'typeorm';
import type { OutboxRow } from '@conduit/outbox';
import { QUEUES, WEBHOOK_KIND_OF_RUN_EVENT, type RunCommand, type RunEvent } from '@conduit/contracts';
import type { OutboxJob, OutboxOptions } from '@conduit/service-kit';
import type { SchedulerSettings } from '../scheduler-settings.js';

/**
 * Where the scheduler's outbox rows go: run commands to `runs`, run events to monitoring and (those a webhook can
 * subscribe to) the webhook dispatcher.
 * A turn's jobs are added with one addBulk per queue (service-kit outbox-relay.ts), which keeps a job id's existing
 * job as add does.
 */
async function jobsOf(rows: OutboxRow[], m: EntityManager): Promise<OutboxJob[]> {
  const queued = await queuedRuns(
    m,
    rows.filter((r) => r['kind'] === 'run_command').map((r) => r['run_id'] as string),
  );
  const jobs: OutboxJob[] = [];
  for (const row of rows) {
    const opts = { jobId: row.message_id };
    if (row['kind'] === 'run_command') {
      if (queued.has(row['run_id'] as string))
        jobs.push({ queue: QUEUES.runs, name: 'run', data: row.payload as RunCommand, opts });
      continue;
    }
    const event = row.payload as RunEvent;
    jobs.push({ queue: QUEUES.eventsMonitoring, name: event.type, data: event, opts });
    // An event no webhook can subscribe to would only be taken and dropped by the dispatcher.
    if (WEBHOOK_KIND_OF_RUN_EVENT[event.type])
      jobs.push({ queue: QUEUES.eventsWebhooks, name: event.type, data: event, opts });
  }
  return jobs;
}

/**
 * The runs among `ids` still queued. Holding their rows (FOR SHARE, in id order like every other multi-run lock)
 * orders this against a cancel: a run canceled before it was published is never enqueued, and a cancel that commits
 * after it finds the queue job to remove.
 */
async function queuedRuns(m: EntityManager, ids: string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const runs = await m.query<{ id: string; status: string }[]>(
    `SELECT id, status FROM runs WHERE id = ANY($1::text[]) ORDER BY id FOR SHARE`,
    [ids],
  );
  return new Set(runs.filter((r) => r.status === 'queued').map((r) => r.id));
}

/** The scheduler's outbox for QueuesModule: relayed when `background.relay` is on. */
export function schedulerOutbox(settings: SchedulerSettings): OutboxOptions {
  return { enabled: settings.background.relay, sweepMs: settings.outboxSweepMs, columns: ['kind', 'run_id'], jobsOf };
}
