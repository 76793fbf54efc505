import type { RunEvent, RunLogBatch } from '@conduit/contracts';
import { newId } from '@conduit/service-kit';

export interface RunShape {
  id: string;
  job_id: string;
  queued_at: string;
}

/** A run as the scheduler would announce it: queued now unless told otherwise. */
export function newRun(jobId: string, queuedAt = new Date()): RunShape {
  return { id: newId('run'), job_id: jobId, queued_at: queuedAt.toISOString() };
}

type Stage = 'queued' | 'running' | 'succeeded' | 'failed' | 'canceled';

export interface EventOptions {
  attempt?: number;
  durationMs?: number;
  rows?: { rows_read: number; rows_written: number };
  error?: string;
}

/** A `run.*` event of the run at that stage, as the scheduler's outbox publishes it. */
export function runEvent(tenantId: string, run: RunShape, stage: Stage, opts: EventOptions = {}): RunEvent {
  const queued = new Date(run.queued_at);
  const started = stage === 'queued' ? null : new Date(queued.getTime() + 10);
  const final = stage === 'succeeded' || stage === 'failed' || stage === 'canceled';
  const duration = opts.durationMs ?? 1000;
  const finished = final && started ? new Date(started.getTime() + duration) : null;
  return {
    event_id: newId('event'),
    type: stage === 'running' ? 'run.started' : `run.${stage}`,
    created_at: new Date().toISOString(),
    tenant_id: tenantId,
    run: {
      id: run.id,
      job_id: run.job_id,
      pipeline_id: 'pln_test',
      pipeline_version: 1,
      status: stage,
      trigger: 'manual',
      attempt: opts.attempt ?? 1,
      queued_at: run.queued_at,
      started_at: started?.toISOString() ?? null,
      finished_at: finished?.toISOString() ?? null,
      duration_ms: finished ? duration : null,
      error: stage === 'failed' ? { message: opts.error ?? 'transform failed' } : null,
      stats: opts.rows ?? { rows_read: 0, rows_written: 0 },
    },
  };
}

/** A log batch of the run: lines n = from..from+count-1 of the attempt, levels cycling info/warn/error, nodes a/b. */
export function logBatch(tenantId: string, run: RunShape, from: number, count: number, attempt = 1): RunLogBatch {
  const levels = ['info', 'warn', 'error'] as const;
  return {
    run_id: run.id,
    tenant_id: tenantId,
    job_id: run.job_id,
    attempt,
    lines: Array.from({ length: count }, (_, i) => {
      const n = from + i;
      return {
        n,
        ts: new Date().toISOString(),
        level: levels[n % 3]!,
        node_id: n % 2 === 0 ? 'a' : 'b',
        message: `attempt ${attempt} line ${n}`,
      };
    }),
  };
}
