import type { CreatedApiKey, Pipeline, Run, RunDag, Tenant } from '@conduit/contracts';
import { call, expectProblem } from './support/client.js';
import { createPipelineAndJob, triggerRun, uniqueName, waitForRunEnd } from './support/helpers.js';
import { useTargetStack } from './support/target-stack.js';

// Get Run DAG (docs/api-decisions.md, "A run's DAG"): a run answers the DAG it ran, not the pipeline's current one.
const target = useTargetStack();

const quick = (connectorId: string, sql: string) => ({
  nodes: [
    { id: 'one', type: 'source', config: { connector_id: connectorId, query: 'select 1 as n' } },
    { id: 'same', type: 'transform', config: { sql } },
  ],
  edges: [{ from: 'one', to: 'same' }],
});

describe('the DAG a run ran', () => {
  it('stays the one it ran after the pipeline changes; another tenant gets a 404', async () => {
    const before = quick(target.connectorId, 'select n from one');
    const { pipelineId, jobId } = await createPipelineAndJob(target.stack, before);
    const run = await waitForRunEnd(target.stack, jobId, (await triggerRun(target.stack, jobId)).id);
    expect(run.status).toBe('succeeded');

    const pipeline = await call<Pipeline>(target.stack, 'GET', `/v2/pipelines/${pipelineId}`);
    const after = quick(target.connectorId, 'select n + 1 as n from one');
    const updated = await call<Pipeline>(target.stack, 'PUT', `/v2/pipelines/${pipelineId}`, {
      body: { name: pipeline.body.name, dag: after },
    });
    expect(updated.status).toBe(200);
    expect(updated.body.version).toBe(2);

    const path = `/v2/jobs/${jobId}/runs/${run.id}/dag`;
    const res = await call<RunDag>(target.stack, 'GET', path);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      run_id: run.id,
      job_id: jobId,
      pipeline_id: pipelineId,
      pipeline_version: 1,
      dag: before,
    });
    // A run triggered now runs the new DAG.
    const next = await triggerRun(target.stack, jobId);
    const nextDag = await call<RunDag>(target.stack, 'GET', `/v2/jobs/${jobId}/runs/${next.id}/dag`);
    expect(nextDag.body).toMatchObject({ pipeline_version: 2, dag: after });

    const other = await call<{ tenant: Tenant; api_key: CreatedApiKey }>(target.stack, 'POST', '/v2/tenants', {
      body: { name: uniqueName('tenant') },
    });
    expect(other.status).toBe(201);
    expectProblem(await call(target.stack, 'GET', path, { key: other.body.api_key.key }), 404, 'not_found');
    expectProblem(await call(target.stack, 'GET', `/v2/jobs/${jobId}/runs/run_nope/dag`), 404, 'not_found');
    await waitForRunEnd(target.stack, jobId, next.id);
  });

  it('needs only the read scope', async () => {
    const { jobId } = await createPipelineAndJob(target.stack, quick(target.connectorId, 'select n from one'));
    const run: Run = await triggerRun(target.stack, jobId);
    const key = await call<CreatedApiKey>(target.stack, 'POST', '/v2/api-keys', {
      body: { name: uniqueName('reader'), scopes: ['read'] },
    });
    expect(key.status).toBe(201);
    const res = await call<RunDag>(target.stack, 'GET', `/v2/jobs/${jobId}/runs/${run.id}/dag`, { key: key.body.key });
    expect(res.status).toBe(200);
    expect(res.body.run_id).toBe(run.id);
    await waitForRunEnd(target.stack, jobId, run.id);
  });
});
