import { describe, expect, it } from '@jest/globals';
import { useSchedulerSuite } from './support/scheduler-suite.js';
import { QUEUES, type Job, type Run, type RunDag } from '@conduit/contracts';
import { newTenant } from './support/db.js';

const suite = useSchedulerSuite({ scheduler: { background: { ticks: false } }, queues: [QUEUES.runs] });
const { caller, store } = suite;

describe('Get Run DAG', () => {
  it('answers the DAG the run ran, not the pipeline as it is now; 404 as for the run', async () => {
    const t = newTenant();
    const pipeline = store.add(t);
    const job = await caller.ok<Job>(t, 'scheduler.jobs.create', {
      body: { name: 'dag-kept', pipeline_id: pipeline.id, concurrency_policy: 'allow' },
    });
    const first = await caller.ok<Run>(t, 'scheduler.runs.trigger', { job_id: job.id, body: {} });
    // The pipeline changes: a third node, version 2.
    const changed = {
      nodes: [
        ...(pipeline.dag['nodes'] as unknown[]),
        { id: 'tidy', type: 'sql', config: { connector_id: 'con_y', sql: 'VACUUM' } },
      ],
      edges: [...(pipeline.dag['edges'] as unknown[]), { from: 'to_dw', to: 'tidy' }],
    };
    store.add(t, { id: pipeline.id, version: 2, dag: changed });
    await store.changed(t);
    const second = await caller.ok<Run>(t, 'scheduler.runs.trigger', { job_id: job.id, body: {} });

    expect(await caller.ok<RunDag>(t, 'scheduler.runs.dag', { job_id: job.id, run_id: first.id })).toEqual({
      run_id: first.id,
      job_id: job.id,
      pipeline_id: pipeline.id,
      pipeline_version: 1,
      dag: pipeline.dag,
    });
    expect(await caller.ok<RunDag>(t, 'scheduler.runs.dag', { job_id: job.id, run_id: second.id })).toMatchObject({
      pipeline_version: 2,
      dag: changed,
    });

    for (const [tenant, data] of [
      [newTenant(), { job_id: job.id, run_id: first.id }],
      [t, { job_id: job.id, run_id: 'run_nope' }],
    ] as const) {
      expect(await caller.call(tenant, 'scheduler.runs.dag', data)).toMatchObject({
        ok: false,
        error: { code: 'not_found' },
      });
    }
  });
});
