import type { Run, RunDag, RunError, RunEvent, RunNode, RunNodeColumn, RunSummary } from '@conduit/contracts';
import { newId } from '@conduit/service-kit';
import type { NodeColumnsById, RunEntity, StoredRunNode } from './run.entity.js';

export type RunEventType = RunEvent['type'];

function iso(d: Date | null): string | null {
  return d ? d.toISOString() : null;
}

function durationMs(row: Pick<RunEntity, 'startedAt' | 'finishedAt'>): number | null {
  return row.startedAt && row.finishedAt ? Math.max(0, row.finishedAt.getTime() - row.startedAt.getTime()) : null;
}

/** jsonb keeps keys in its own order: answer errors and nodes with their fields in the documented order. */
function orderedError(error: RunError | null): RunError | null {
  if (!error) return null;
  return {
    ...(error.code !== undefined ? { code: error.code } : {}),
    message: error.message,
    ...(error.node_id !== undefined ? { node_id: error.node_id } : {}),
  };
}

/** Own entries only: a node named `constructor` must not find Object's. */
function columnsOf(byId: NodeColumnsById, nodeId: string): RunNodeColumn[] | null {
  return Object.hasOwn(byId, nodeId) ? byId[nodeId]! : null;
}

export function orderedNode(node: StoredRunNode, columns: RunNodeColumn[] | null): RunNode {
  return {
    id: node.id,
    type: node.type,
    status: node.status,
    started_at: node.started_at,
    finished_at: node.finished_at,
    attempts: node.attempts,
    rows_in: node.rows_in,
    rows_out: node.rows_out,
    output: node.output,
    error: orderedError(node.error),
    columns,
  };
}

export function toRun(row: RunEntity): Run {
  return {
    id: row.id,
    job_id: row.jobId,
    pipeline_id: row.pipelineId,
    pipeline_version: row.pipelineVersion,
    status: row.status,
    trigger: row.trigger,
    parameters: row.parameters,
    attempt: row.attempt,
    queued_at: row.queuedAt.toISOString(),
    started_at: iso(row.startedAt),
    finished_at: iso(row.finishedAt),
    duration_ms: durationMs(row),
    error: orderedError(row.error),
    nodes: row.nodes.map((node) => orderedNode(node, columnsOf(row.nodeColumns, node.id))),
    stats: { rows_read: row.stats.rows_read, rows_written: row.stats.rows_written },
  };
}

export function toRunSummary(
  row: Pick<RunEntity, 'id' | 'status' | 'trigger' | 'queuedAt' | 'finishedAt'>,
): RunSummary {
  return {
    id: row.id,
    status: row.status,
    trigger: row.trigger,
    queued_at: row.queuedAt.toISOString(),
    finished_at: iso(row.finishedAt),
  };
}

/** What of a run its events tell. */
export type RunEventSource = Pick<
  RunEntity,
  | 'id'
  | 'tenantId'
  | 'jobId'
  | 'pipelineId'
  | 'pipelineVersion'
  | 'status'
  | 'trigger'
  | 'attempt'
  | 'queuedAt'
  | 'startedAt'
  | 'finishedAt'
  | 'error'
  | 'stats'
>;

/**
 * The event announcing the run's new state to monitoring and the webhook dispatcher; a new id unless given (the
 * outbox row of a batch of scheduled runs keeps its events' ids, so a re-publish dedupes).
 */
export function runEventOf(
  row: RunEventSource,
  type: RunEventType,
  at: Date,
  eventId: string = newId('event'),
): RunEvent {
  return {
    event_id: eventId,
    type,
    created_at: at.toISOString(),
    tenant_id: row.tenantId,
    run: {
      id: row.id,
      job_id: row.jobId,
      pipeline_id: row.pipelineId,
      pipeline_version: row.pipelineVersion,
      status: row.status,
      trigger: row.trigger,
      attempt: row.attempt,
      queued_at: row.queuedAt.toISOString(),
      started_at: iso(row.startedAt),
      finished_at: iso(row.finishedAt),
      duration_ms: durationMs(row),
      error: row.error,
      stats: row.stats,
    },
  };
}

/** The DAG the run ran: its snapshot of the pipeline, taken when it was triggered. */
export function toRunDag(row: RunEntity): RunDag {
  return {
    run_id: row.id,
    job_id: row.jobId,
    pipeline_id: row.pipelineId,
    pipeline_version: row.pipelineVersion,
    dag: row.dag,
  };
}
