import type { ConnectorVersion, RunCommand, RunEvent } from '@conduit/contracts';
import type { OutboxMessage } from '@conduit/outbox';
import { JOB_TRACE_KEY, withJobTrace } from '@conduit/service-kit';
import { runEventOf } from '../runs/run.mapper.js';

/**
 * A batch of the schedule clock's runs as outbox rows of kind `scheduled_runs`, each naming up to RUNS_PER_MESSAGE
 * runs instead of two full rows (command, `run.queued` event) per run. The relay builds each run's command and event
 * when it publishes (scheduler-outbox.ts), with the job ids of before: the run id for a command, the event id kept in
 * the row for an event, so a re-publish dedupes. The event comes from the row alone, as a run_event row's does; the
 * command also needs the run (its status and parameters).
 */

/**
 * Runs per row. A relay turn of 100 such rows names up to 10,000 runs (a busy minute's): it holds their rows FOR
 * SHARE while it publishes, their commands go 500 per MULTI and their events 100 per batch job (service-kit's
 * outbox-relay.ts), so Redis is never held for the whole turn.
 */
export const RUNS_PER_MESSAGE = 100;

/** The runs' trigger: the clock makes only scheduled runs. */
export const SCHEDULED_TRIGGER = 'schedule';

/** A pipeline version as the batch's runs took it: the run command's DAG and connectors. */
export interface ScheduledPipeline {
  id: string;
  version: number;
  dag: Record<string, unknown>;
  connectors?: ConnectorVersion[];
}

/** A run of the row: its ids, its tenant and job, and its pipeline (an index into the row's `pipelines`). */
export interface ScheduledRunEntry {
  run_id: string;
  event_id: string;
  tenant_id: string;
  job_id: string;
  pipeline: number;
}

/** The payload of a `scheduled_runs` row (and the trace context it was written under, as withJobTrace adds it). */
export interface ScheduledRunsPayload {
  /** The runs' queued_at, their event's created_at (ISO). */
  queued_at: string;
  pipelines: ScheduledPipeline[];
  runs: ScheduledRunEntry[];
  [JOB_TRACE_KEY]?: unknown;
}

/** A run the clock made, as its outbox row names it. */
export interface ScheduledRunRef {
  runId: string;
  eventId: string;
  tenantId: string;
  jobId: string;
  pipeline: ScheduledPipeline;
}

/** The outbox rows of runs queued at `at`, RUNS_PER_MESSAGE a row, in the runs' order. */
export function scheduledRunsMessages(runs: readonly ScheduledRunRef[], at: Date): OutboxMessage[] {
  const messages: OutboxMessage[] = [];
  for (let i = 0; i < runs.length; i += RUNS_PER_MESSAGE) {
    const chunk = runs.slice(i, i + RUNS_PER_MESSAGE);
    const pipelines: ScheduledPipeline[] = [];
    const indexOf = new Map<ScheduledPipeline, number>();
    const entries = chunk.map((run): ScheduledRunEntry => {
      let index = indexOf.get(run.pipeline);
      if (index === undefined) {
        index = pipelines.push(run.pipeline) - 1;
        indexOf.set(run.pipeline, index);
      }
      return { run_id: run.runId, event_id: run.eventId, tenant_id: run.tenantId, job_id: run.jobId, pipeline: index };
    });
    const payload: ScheduledRunsPayload = { queued_at: at.toISOString(), pipelines, runs: entries };
    messages.push({
      kind: 'scheduled_runs',
      // Not a job id (each run's jobs have their own): the first run, to find the row by.
      message_id: chunk[0]!.runId,
      run_id: chunk[0]!.runId,
      payload: withJobTrace(payload),
      created_at: at,
    });
  }
  return messages;
}

/** The run ids a `scheduled_runs` row names. */
export function scheduledRunIds(payload: ScheduledRunsPayload): string[] {
  return payload.runs.map((r) => r.run_id);
}

/** A run's `run.queued` event, as createWithin writes it for a new run (trace context of the row, if any). */
export function scheduledRunEvent(payload: ScheduledRunsPayload, run: ScheduledRunEntry): RunEvent {
  const pipeline = payload.pipelines[run.pipeline]!;
  const queuedAt = new Date(payload.queued_at);
  const event = runEventOf(
    {
      id: run.run_id,
      tenantId: run.tenant_id,
      jobId: run.job_id,
      pipelineId: pipeline.id,
      pipelineVersion: pipeline.version,
      status: 'queued',
      trigger: SCHEDULED_TRIGGER,
      attempt: 1,
      queuedAt,
      startedAt: null,
      finishedAt: null,
      error: null,
      stats: { rows_read: 0, rows_written: 0 },
    },
    'run.queued',
    queuedAt,
    run.event_id,
  );
  return traced(payload, event);
}

/** A run's command, as createWithin writes it, with the parameters the run was made with. */
export function scheduledRunCommand(
  payload: ScheduledRunsPayload,
  run: ScheduledRunEntry,
  parameters: Record<string, unknown>,
): RunCommand {
  const pipeline = payload.pipelines[run.pipeline]!;
  return traced(payload, {
    run_id: run.run_id,
    tenant_id: run.tenant_id,
    job_id: run.job_id,
    pipeline_id: pipeline.id,
    pipeline_version: pipeline.version,
    dag: pipeline.dag,
    parameters,
    trigger: SCHEDULED_TRIGGER,
    ...(pipeline.connectors && { connectors: pipeline.connectors }),
  });
}

/** The message with the row's trace context, as a run_command or run_event row carries its own. */
function traced<T extends object>(payload: ScheduledRunsPayload, message: T): T {
  const trace = payload[JOB_TRACE_KEY];
  return trace === undefined ? message : { ...message, [JOB_TRACE_KEY]: trace };
}
