import type { EntityManager } from 'typeorm';
import type { OutboxRow } from '@conduit/outbox';
import { QUEUES, WEBHOOK_KIND_OF_RUN_EVENT, type RunCommand, type RunEvent } from '@conduit/contracts';
import { preparedQuery, type OutboxJob, type OutboxOptions, type WebhookTenants } from '@conduit/service-kit';
import type { SchedulerSettings } from '../scheduler-settings.js';
import {
  scheduledRunCommand,
  scheduledRunEvent,
  scheduledRunIds,
  type ScheduledRunsPayload,
} from './scheduled-runs-message.js';

/**
 * How long a run's start (its command's outbox copy, `run.queued`, `run.started`) may wait in the outbox for the
 * run's next row: a run that ends within it has its events published in one relay turn, one batch job per consumer,
 * after its run has been claimed and has run, instead of a turn and a job each while it starts (issue 18). The
 * command itself is added at once by the trigger (runs.service.ts); an end is published at once, with what waits.
 */
export const RUN_START_EVENTS_WAIT_MS = 100;

/**
 * Where the scheduler's outbox rows go: run commands to `runs`, run events to monitoring and (those a webhook can
 * subscribe to, of a tenant that may have a webhook) the webhook dispatcher; a `scheduled_runs` row becomes each of
 * its runs' command and `run.queued` event, in the order of a command row and an event row per run
 * (scheduled-runs-message.ts). A turn's jobs are added with one addBulk per queue (service-kit outbox-relay.ts), which
 * keeps a job id's existing job as add does.
 */
async function jobsOf(
  rows: OutboxRow[],
  m: EntityManager,
  webhookTenants: WebhookTenants | undefined,
): Promise<OutboxJob[]> {
  const events: [RunEvent, string][] = rows.flatMap((row): [RunEvent, string][] => {
    if (row['kind'] === 'run_command') return [];
    if (row['kind'] !== 'scheduled_runs') return [[row.payload as RunEvent, row.message_id]];
    const payload = row.payload as unknown as ScheduledRunsPayload;
    return payload.runs.map((run) => [scheduledRunEvent(payload, run), run.event_id]);
  });
  const forWebhooks = events.filter(([event]) => WEBHOOK_KIND_OF_RUN_EVENT[event.type]);
  // The tenants' webhooks are asked while the runs are read: one Redis round trip beside the query, none after it.
  const [runs, withWebhooks] = await Promise.all([
    runsOf(
      m,
      rows.flatMap((r) =>
        r['kind'] === 'run_command'
          ? [r['run_id'] as string]
          : r['kind'] === 'scheduled_runs'
            ? scheduledRunIds(r.payload as unknown as ScheduledRunsPayload)
            : [],
      ),
    ),
    webhookTenants?.subscribedAmong(forWebhooks.map(([event]) => event.tenant_id)) ?? null,
  ]);
  const queued = (id: string) => runs.get(id)?.status === 'queued';
  // Each queue's jobs keep the rows' order (addOutboxJobs adds them per queue).
  const jobs: OutboxJob[] = [];
  for (const row of rows) {
    if (row['kind'] === 'run_command') {
      if (queued(row['run_id'] as string))
        jobs.push({
          queue: QUEUES.runs,
          name: 'run',
          data: row.payload as RunCommand,
          opts: { jobId: row.message_id },
        });
    } else if (row['kind'] === 'scheduled_runs') {
      const payload = row.payload as unknown as ScheduledRunsPayload;
      for (const run of payload.runs)
        if (queued(run.run_id)) {
          const command = scheduledRunCommand(payload, run, runs.get(run.run_id)!.parameters);
          jobs.push({ queue: QUEUES.runs, name: 'run', data: command, opts: { jobId: run.run_id } });
        }
    }
  }
  for (const [event, jobId] of events)
    jobs.push({ queue: QUEUES.eventsMonitoring, name: event.type, data: event, opts: { jobId } });
  // An event no webhook can subscribe to, or of a tenant without webhooks, would only be taken and dropped by the
  // dispatcher.
  for (const [event, jobId] of forWebhooks)
    if (withWebhooks === null || withWebhooks.has(event.tenant_id))
      jobs.push({ queue: QUEUES.eventsWebhooks, name: event.type, data: event, opts: { jobId } });
  return jobs;
}

/**
 * The runs among `ids` (their status, and the parameters a scheduled run's command takes from its row), read without
 * a lock: a run canceled before this read is never enqueued. A cancel that commits after it may miss the job it
 * looks for (not added yet), and the job is then added for a run that is over: its executor's claim is refused and
 * nothing runs (run-claims.ts), as for a manual trigger's command, which the scheduler adds at once after its commit
 * (runs.service.ts). Holding the rows (FOR SHARE) would make that command's claim wait for this turn's commit.
 */
async function runsOf(m: EntityManager, ids: string[]): Promise<Map<string, PublishedRun>> {
  if (ids.length === 0) return new Map();
  const runs = await preparedQuery<PublishedRun & { id: string }>(
    m,
    `SELECT id, status, parameters FROM runs WHERE id = ANY($1::text[])`,
    [ids],
  );
  return new Map(runs.map((r) => [r.id, r]));
}

interface PublishedRun {
  status: string;
  parameters: Record<string, unknown>;
}

/**
 * The scheduler's outbox for QueuesModule: relayed when `background.relay` is on. Without `webhookTenants`, every
 * event a webhook can subscribe to goes to the dispatcher.
 */
export function schedulerOutbox(settings: SchedulerSettings, webhookTenants?: WebhookTenants): OutboxOptions {
  return {
    enabled: settings.background.relay,
    sweepMs: settings.outboxSweepMs,
    columns: ['kind', 'run_id'],
    jobsOf: (rows, m) => jobsOf(rows, m, webhookTenants),
  };
}
