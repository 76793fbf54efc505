import type { EntityManager } from 'typeorm';
import type { RunEvent } from '@conduit/contracts';

/** How far along a status is: a fact only moves forward (queued < running < any final status). */
const RANK_SQL = (col: string) => `(CASE ${col} WHEN 'queued' THEN 0 WHEN 'running' THEN 1 ELSE 2 END)`;

/**
 * Upserts the run's fact from a run event, keeping the latest state: an event is applied when the fact is new, or
 * when it moves the status forward, or when it is a later attempt at the same stage (a run taken over by another
 * executor). A final fact never changes. Answers whether the event was applied (false: stale).
 */
export async function upsertRunFact(m: EntityManager, event: RunEvent): Promise<boolean> {
  const r = event.run;
  const rows = await m.query<unknown[]>(
    `INSERT INTO run_facts AS f (run_id, tenant_id, job_id, pipeline_id, status, trigger, attempt, queued_at, started_at,
                                 finished_at, duration_ms, rows_read, rows_written, error, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, now())
     ON CONFLICT (run_id) DO UPDATE SET
       status = EXCLUDED.status, trigger = EXCLUDED.trigger, attempt = EXCLUDED.attempt, queued_at = EXCLUDED.queued_at,
       started_at = EXCLUDED.started_at, finished_at = EXCLUDED.finished_at, duration_ms = EXCLUDED.duration_ms,
       rows_read = EXCLUDED.rows_read, rows_written = EXCLUDED.rows_written, error = EXCLUDED.error, updated_at = now()
     WHERE f.tenant_id = EXCLUDED.tenant_id
       AND ${RANK_SQL('f.status')} < 2
       AND (${RANK_SQL('EXCLUDED.status')} > ${RANK_SQL('f.status')}
            OR (${RANK_SQL('EXCLUDED.status')} = ${RANK_SQL('f.status')} AND EXCLUDED.attempt > f.attempt))
     RETURNING run_id`,
    [
      r.id,
      event.tenant_id,
      r.job_id,
      r.pipeline_id,
      r.status,
      r.trigger,
      r.attempt,
      r.queued_at,
      r.started_at,
      r.finished_at,
      r.duration_ms,
      r.stats.rows_read,
      r.stats.rows_written,
      r.error,
    ],
  );
  return rows.length > 0;
}

export interface RunFactRow {
  run_id: string;
  tenant_id: string;
  job_id: string;
  status: string;
  updated_at: Date;
}

/** The tenant's run, only when it belongs to that job (another tenant's run, or another job's, is not found). */
export async function findRunFact(
  m: EntityManager,
  tenantId: string,
  jobId: string,
  runId: string,
): Promise<RunFactRow | undefined> {
  const rows = await m.query<RunFactRow[]>(
    `SELECT run_id, tenant_id, job_id, status, updated_at FROM run_facts WHERE run_id = $1 AND tenant_id = $2 AND job_id = $3`,
    [runId, tenantId, jobId],
  );
  return rows[0];
}
