import type { EntityManager } from 'typeorm';
import type { PipelineSnapshot } from '@conduit/contracts';
import { newId } from '@conduit/service-kit';
import { initialNodes } from './run-transitions.js';
import { SCHEDULED_TRIGGER, type ScheduledPipeline, type ScheduledRunRef } from '../outbox/scheduled-runs-message.js';

/**
 * The rows of the schedule clock's runs, made ready before the fire time and inserted at it: each pipeline's DAG and
 * initial nodes go once per batch, not once per run, and the columns whose value a new run takes from the table's
 * defaults (attempt 1, node_columns {}, requeues 0, epoch 0, the nulls) are not written. A row read back is the one
 * createWithin writes (scheduled-runs-outbox.test.ts compares them).
 */

/** A run of the batch: all of its row but its id and times. */
export interface ScheduledRunDraft {
  tenantId: string;
  jobId: string;
  tickId: string;
  pipeline: ScheduledPipeline;
  /** The row's JSON after its id (`"tenant_id":...}`), built ahead. */
  rowTail: string;
}

/** A batch made ready: its runs, and its pipelines as the insert joins them. */
export interface ScheduledBatch {
  drafts: ScheduledRunDraft[];
  pipelinesJson: string;
}

/** What one scheduled run is made of. */
export interface ScheduledRunInput {
  tenantId: string;
  jobId: string;
  tickId: string;
  snapshot: PipelineSnapshot;
  parameters: Record<string, unknown>;
}

/** The batch's rows, but for their ids and times; runs of one snapshot share its pipeline. */
export function prepareScheduledBatch(inputs: readonly ScheduledRunInput[]): ScheduledBatch {
  const indexOf = new Map<PipelineSnapshot, number>();
  const pipelines: { pipeline: ScheduledPipeline; json: string }[] = [];
  const drafts = inputs.map((input): ScheduledRunDraft => {
    let index = indexOf.get(input.snapshot);
    if (index === undefined) {
      const { id, version, dag, connectors } = input.snapshot;
      const pipeline: ScheduledPipeline = { id, version, dag, ...(connectors && { connectors }) };
      const json = JSON.stringify({ i: pipelines.length, id, version, dag, nodes: initialNodes(dag) });
      index = pipelines.push({ pipeline, json }) - 1;
      indexOf.set(input.snapshot, index);
    }
    const tail = JSON.stringify({
      tenant_id: input.tenantId,
      job_id: input.jobId,
      pipeline: index,
      parameters: input.parameters,
      tick_id: input.tickId,
    });
    return {
      tenantId: input.tenantId,
      jobId: input.jobId,
      tickId: input.tickId,
      pipeline: pipelines[index]!.pipeline,
      rowTail: tail.slice(1),
    };
  });
  return { drafts, pipelinesJson: `[${pipelines.map((p) => p.json).join(',')}]` };
}

/** $1 the runs (id and tail), $2 the batch's pipelines, $3 queued_at. A run whose tick already made one is skipped. */
const INSERT_SCHEDULED_RUNS = `INSERT INTO runs (id, tenant_id, job_id, pipeline_id, pipeline_version, dag, status, trigger,
       parameters, queued_at, nodes, stats, last_event_at, tick_id)
     SELECT r.id, r.tenant_id, r.job_id, p.id, p.version, p.dag, 'queued', '${SCHEDULED_TRIGGER}', r.parameters, $3, p.nodes,
            '{"rows_read": 0, "rows_written": 0}', $3, r.tick_id
       FROM json_to_recordset($1::json) AS r(id text, tenant_id text, job_id text, pipeline int, parameters jsonb, tick_id text)
       JOIN json_to_recordset($2::json) AS p(i int, id text, version int, dag jsonb, nodes jsonb) ON p.i = r.pipeline
     ON CONFLICT DO NOTHING RETURNING id`;

/** Inserts the drafts' runs, queued at `at`, with new ids; answers those inserted, in the drafts' order. */
export async function insertScheduledRuns(
  m: EntityManager,
  batch: ScheduledBatch,
  drafts: readonly ScheduledRunDraft[],
  at: Date,
): Promise<ScheduledRunRef[]> {
  if (drafts.length === 0) return [];
  const runs = drafts.map((draft) => ({ id: newId('run'), draft }));
  const rows = `[${runs.map((r) => `{"id":${JSON.stringify(r.id)},${r.draft.rowTail}`).join(',')}]`;
  const inserted = await m.query<{ id: string }[]>(INSERT_SCHEDULED_RUNS, [rows, batch.pipelinesJson, at]);
  const ids = new Set(inserted.map((r) => r.id));
  return runs
    .filter((r) => ids.has(r.id))
    .map((r) => ({
      runId: r.id,
      eventId: newId('event'),
      tenantId: r.draft.tenantId,
      jobId: r.draft.jobId,
      pipeline: r.draft.pipeline,
    }));
}
