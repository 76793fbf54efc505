import type { MonitoringEvent } from '@conduit/contracts';
import type { SqlRunner } from '../common/sql-runner.js';

const RANK_SQL = (col: string) => `(CASE ${col} WHEN 'queued' THEN 0 WHEN 'running' THEN 1 ELSE 2 END)`;

/**
 * Records the events' ids and applies the run events among the new ones to their runs' facts, in one statement:
 * a fact is applied when it is new, or when the event moves its status forward, or is a later attempt at the same
 * stage (a run taken over by another executor); a final fact never changes, another tenant's is never touched.
 * ON CONFLICT takes each fact's row lock, so replicas applying events of one run at once stay correct. It also reads
 * which jobs of the succeeded runs have an open alert (the statement's snapshot). With `unlessAlerting`, it writes
 * nothing when one has: the caller then applies the events in a transaction with their alerts.
 *
 * At most one event per run: ON CONFLICT cannot update a row twice in one statement.
 */
const STATEMENT = `
WITH v AS (
  SELECT * FROM jsonb_to_recordset($1::jsonb) AS v(event_id text, type text, run_id text, tenant_id text, job_id text,
    pipeline_id text, status text, trigger text, attempt int, queued_at timestamptz, started_at timestamptz,
    finished_at timestamptz, duration_ms bigint, rows_read bigint, rows_written bigint, error jsonb)
), alerting AS (
  SELECT DISTINCT a.tenant_id, a.job_id FROM alerts a JOIN v ON a.tenant_id = v.tenant_id AND a.job_id = v.job_id
   WHERE v.type = 'run.succeeded' AND a.status = 'open' AND a.rule IN ('run_failed', 'consecutive_failures')
), go AS (
  SELECT NOT ($2::boolean AND EXISTS (SELECT 1 FROM alerting)) AS ok
), fresh AS (
  INSERT INTO processed_events (event_id, processed_at) SELECT v.event_id, $3 FROM v, go WHERE go.ok
  ON CONFLICT (event_id) DO NOTHING RETURNING event_id
), applied AS (
  INSERT INTO run_facts AS f (run_id, tenant_id, job_id, pipeline_id, status, trigger, attempt, queued_at, started_at,
                              finished_at, duration_ms, rows_read, rows_written, error, updated_at)
  SELECT v.run_id, v.tenant_id, v.job_id, v.pipeline_id, v.status, v.trigger, v.attempt, v.queued_at, v.started_at,
         v.finished_at, v.duration_ms, v.rows_read, v.rows_written, v.error, now()
    FROM v JOIN fresh ON fresh.event_id = v.event_id
   WHERE v.run_id IS NOT NULL
  ON CONFLICT (run_id) DO UPDATE SET
    status = EXCLUDED.status, trigger = EXCLUDED.trigger, attempt = EXCLUDED.attempt, queued_at = EXCLUDED.queued_at,
    started_at = EXCLUDED.started_at, finished_at = EXCLUDED.finished_at, duration_ms = EXCLUDED.duration_ms,
    rows_read = EXCLUDED.rows_read, rows_written = EXCLUDED.rows_written, error = EXCLUDED.error, updated_at = now()
  WHERE f.tenant_id = EXCLUDED.tenant_id
    AND ${RANK_SQL('f.status')} < 2
    AND (${RANK_SQL('EXCLUDED.status')} > ${RANK_SQL('f.status')}
         OR (${RANK_SQL('EXCLUDED.status')} = ${RANK_SQL('f.status')} AND EXCLUDED.attempt > f.attempt))
  RETURNING run_id
)
SELECT (SELECT ok FROM go) AS ok,
       ARRAY(SELECT event_id FROM fresh) AS fresh,
       ARRAY(SELECT run_id FROM applied) AS applied,
       ARRAY(SELECT tenant_id || '/' || job_id FROM alerting) AS alerting`;

export interface StatementResult {
  /** False when `unlessAlerting` held the statement back: nothing was written. */
  written: boolean;
  /** Event ids seen for the first time. */
  fresh: Set<string>;
  /** Runs whose fact an event moved. */
  applied: Set<string>;
  /** `tenant/job` of the succeeded runs' jobs with an open alert. */
  alerting: Set<string>;
}

function rowOf(event: MonitoringEvent): Record<string, unknown> {
  if (!event.type.startsWith('run.') || !('run' in event)) return { event_id: event.event_id, type: event.type };
  const r = event.run;
  return {
    event_id: event.event_id,
    type: event.type,
    run_id: r.id,
    tenant_id: event.tenant_id,
    job_id: r.job_id,
    pipeline_id: r.pipeline_id,
    status: r.status,
    trigger: r.trigger,
    attempt: r.attempt,
    queued_at: r.queued_at,
    started_at: r.started_at,
    finished_at: r.finished_at,
    duration_ms: r.duration_ms,
    rows_read: r.stats.rows_read,
    rows_written: r.stats.rows_written,
    error: r.error,
  };
}

/** Runs the statement over events of distinct runs (webhook events only have their ids recorded). */
export async function recordAndApply(
  run: SqlRunner,
  events: readonly MonitoringEvent[],
  opts: { unlessAlerting: boolean },
): Promise<StatementResult> {
  const [row] = await run<{ ok: boolean; fresh: string[]; applied: string[]; alerting: string[] }>({
    text: STATEMENT,
    values: [JSON.stringify(events.map(rowOf)), opts.unlessAlerting, new Date()],
  });
  return {
    written: row!.ok,
    fresh: new Set(row!.fresh),
    applied: new Set(row!.applied),
    alerting: new Set(row!.alerting),
  };
}
