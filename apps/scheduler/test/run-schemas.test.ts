import { describe, expect, it } from '@jest/globals';
import { newTenant } from './support/db.js';
import { useSchedulerSuite } from './support/scheduler-suite.js';
import type { Job, RecordedSchemasReply, Run, RunNodeColumn } from '@conduit/contracts';

// scheduler.runs.schemas over the real transport: the columns recent runs recorded for a pipeline's sources.
const suite = useSchedulerSuite({ scheduler: { background: { ticks: false } } });
const { caller, store } = suite;

const SOURCE_CONFIG = { connector_id: 'con_pg', query: 'select id, amount from orders' };
const DAG = {
  nodes: [
    { id: 'src', type: 'source', config: SOURCE_CONFIG },
    { id: 'calc', type: 'transform', config: { sql: 'select id from src' } },
    { id: 'out', type: 'sink', config: { connector_id: 'con_pg', table: 'out', mode: 'append' } },
  ],
  edges: [
    { from: 'src', to: 'calc' },
    { from: 'calc', to: 'out' },
  ],
};

const cols = (...pairs: [string, string | null][]): RunNodeColumn[] => pairs.map(([name, type]) => ({ name, type }));

/** What an executor's reports leave in the run's row once its nodes succeeded. */
async function recordColumns(runId: string, byNode: Record<string, RunNodeColumn[]>): Promise<void> {
  await suite.ds.query(`UPDATE runs SET node_columns = $2::jsonb WHERE id = $1`, [runId, JSON.stringify(byNode)]);
}

describe('scheduler.runs.schemas', () => {
  it("answers each source's columns from the newest run that recorded them, for the calling tenant only", async () => {
    const t = newTenant();
    const pipeline = store.add(t, { dag: DAG });
    const job = await caller.ok<Job>(t, 'scheduler.jobs.create', {
      body: { name: 'schemas', pipeline_id: pipeline.id, concurrency_policy: 'allow' },
    });
    const trigger = () => caller.ok<Run>(t, 'scheduler.runs.trigger', { job_id: job.id, body: {} });

    expect(await caller.ok<RecordedSchemasReply>(t, 'scheduler.runs.schemas', { pipeline_id: pipeline.id })).toEqual({
      sources: [],
    });

    const first = await trigger();
    await recordColumns(first.id, {
      src: cols(['id', 'INTEGER'], ['amount', 'DECIMAL(12,2)']),
      calc: cols(['id', 'INTEGER']),
    });
    const second = await trigger();
    await recordColumns(second.id, { src: cols(['id', 'BIGINT'], ['amount', 'DECIMAL(12,2)'], ['note', 'VARCHAR']) });
    // The newest run has recorded nothing yet (still queued): the one before it answers.
    await trigger();

    expect(await caller.ok<RecordedSchemasReply>(t, 'scheduler.runs.schemas', { pipeline_id: pipeline.id })).toEqual({
      sources: [
        {
          node_id: 'src',
          run_id: second.id,
          node: { type: 'source', config: SOURCE_CONFIG },
          columns: cols(['id', 'BIGINT'], ['amount', 'DECIMAL(12,2)'], ['note', 'VARCHAR']),
        },
      ],
    });
    // Another tenant asking for the same pipeline id learns nothing.
    expect(
      await caller.ok<RecordedSchemasReply>(newTenant(), 'scheduler.runs.schemas', { pipeline_id: pipeline.id }),
    ).toEqual({ sources: [] });
  });
});
