// Jobs and their runs.
import {
  jobCreateSchema,
  jobListQuerySchema,
  jobPageSchema,
  jobSchema,
  jobUpdateSchema,
  runListQuerySchema,
  runDagSchema,
  runPageSchema,
  runSchema,
  runTriggerSchema,
} from '@conduit/contracts';
import type { OperationSpec } from '../operation-spec.js';
import { exampleJob, exampleJobCreate, exampleRunDag, exampleRunQueued, exampleRunSucceeded } from '../examples.js';
import { idParams, one, page } from './common.js';

const jobId = idParams({ job_id: 'job' });
const runId = idParams({ job_id: 'job', run_id: 'run' });

export const jobOperations: OperationSpec[] = [
  {
    operationId: 'listJobs',
    method: 'get',
    path: '/v2/jobs',
    tag: 'Jobs',
    status: 200,
    summary: 'List Jobs',
    description: "The tenant's jobs, newest first; filter by `pipeline_id` and `status`.",
    query: jobListQuerySchema,
    response: { schema: jobPageSchema, description: 'A page of jobs.', examples: one('One page', page([exampleJob])) },
  },
  {
    operationId: 'createJob',
    method: 'post',
    path: '/v2/jobs',
    tag: 'Jobs',
    status: 201,
    headers: ['Location', 'ETag'],
    summary: 'Create Job',
    description:
      '`schedule` is five cron fields (minute hour day-of-month month day-of-week) in `timezone` (IANA, default UTC), ' +
      'or null for a job run only by hand. A 422 `invalid_cron` names the field at fault.',
    body: { schema: jobCreateSchema, required: true, examples: one('Every night at 2:00 in Paris', exampleJobCreate) },
    response: { schema: jobSchema, description: 'The job.', examples: one('The job', exampleJob) },
    errors: ['name_taken', 'unknown_pipeline'],
  },
  {
    operationId: 'getJob',
    method: 'get',
    path: '/v2/jobs/{job_id}',
    tag: 'Jobs',
    status: 200,
    headers: ['ETag'],
    summary: 'Get Job',
    description: 'One job, with its next scheduled time and last run.',
    params: jobId,
    response: { schema: jobSchema, description: 'The job.', examples: one('The job', exampleJob) },
  },
  {
    operationId: 'updateJob',
    method: 'put',
    path: '/v2/jobs/{job_id}',
    tag: 'Jobs',
    status: 200,
    headers: ['ETag'],
    summary: 'Update Job',
    description: 'Replaces every mutable field; the schedule takes effect at once. Honours If-Match.',
    params: jobId,
    body: {
      schema: jobUpdateSchema,
      required: true,
      examples: one('Every six hours', { ...exampleJobCreate, schedule: '0 */6 * * *' }),
    },
    response: {
      schema: jobSchema,
      description: 'The job as updated.',
      examples: one('The job', { ...exampleJob, schedule: '0 */6 * * *' }),
    },
    errors: ['name_taken', 'unknown_pipeline', 'precondition_failed'],
  },
  {
    operationId: 'deleteJob',
    method: 'delete',
    path: '/v2/jobs/{job_id}',
    tag: 'Jobs',
    status: 204,
    summary: 'Delete Job',
    description: 'Cancels its active runs first.',
    params: jobId,
    errors: ['precondition_failed'],
  },
  {
    operationId: 'pauseJob',
    method: 'post',
    path: '/v2/jobs/{job_id}/pause',
    tag: 'Jobs',
    status: 200,
    summary: 'Pause Job',
    description: 'Stops scheduled runs; triggers by hand still work.',
    params: jobId,
    response: {
      schema: jobSchema,
      description: 'The job, paused.',
      examples: one('Paused', { ...exampleJob, status: 'paused', next_run_at: null, upcoming_runs_at: [] }),
    },
  },
  {
    operationId: 'resumeJob',
    method: 'post',
    path: '/v2/jobs/{job_id}/resume',
    tag: 'Jobs',
    status: 200,
    summary: 'Resume Job',
    description: 'Scheduled runs start again from the next scheduled time.',
    params: jobId,
    response: { schema: jobSchema, description: 'The job, active.', examples: one('Active', exampleJob) },
  },
  {
    operationId: 'triggerRun',
    method: 'post',
    path: '/v2/jobs/{job_id}/run',
    tag: 'Runs',
    status: 202,
    headers: ['Location'],
    summary: 'Trigger Run',
    description:
      "Starts a run of the job with the pipeline as it is now. The optional body `{ parameters }` overrides the job's " +
      'defaults key by key. 409 `pipeline_invalid` when the pipeline does not validate, 409 `run_in_progress` under the ' +
      '`forbid` policy; `replace` cancels the active run first.',
    params: jobId,
    body: {
      schema: runTriggerSchema,
      required: false,
      examples: one('A wider window', { parameters: { since_days: 7 } }),
    },
    response: {
      schema: runSchema,
      description: 'The run, queued; follow it at `Location`.',
      examples: one('Queued', exampleRunQueued),
    },
    errors: ['pipeline_invalid', 'run_in_progress'],
  },
  {
    operationId: 'listRuns',
    method: 'get',
    path: '/v2/jobs/{job_id}/runs',
    tag: 'Runs',
    status: 200,
    summary: 'List Runs',
    description: "The job's runs, newest first; filter by `status`.",
    params: jobId,
    query: runListQuerySchema,
    response: {
      schema: runPageSchema,
      description: 'A page of runs.',
      examples: one('One page', page([exampleRunSucceeded])),
    },
  },
  {
    operationId: 'getRun',
    method: 'get',
    path: '/v2/jobs/{job_id}/runs/{run_id}',
    tag: 'Runs',
    status: 200,
    summary: 'Get Run Status',
    description:
      'The run with its nodes. Each node carries `columns`: its output columns as `[{ name, type, source_type? }]` ' +
      "(`type` is DuckDB's type as SQL, e.g. `DECIMAL(12,2)`, or null where rows went straight from PostgreSQL to PostgreSQL " +
      "as CSV; `source_type` the source database's own, where a source declared it; a sink's are the columns it wrote), " +
      'at most 1,000, names and types cut at 256 characters, never any row value; `null` until the node has produced output.',
    params: runId,
    response: { schema: runSchema, description: 'The run.', examples: one('Succeeded', exampleRunSucceeded) },
  },
  {
    operationId: 'getRunDag',
    method: 'get',
    path: '/v2/jobs/{job_id}/runs/{run_id}/dag',
    tag: 'Runs',
    status: 200,
    summary: 'Get Run DAG',
    description:
      "The DAG the run ran: the pipeline's DAG and version as they were when the run was triggered, whatever the " +
      'pipeline became since (Get Pipeline answers its current one). 404 as for the run.',
    params: runId,
    response: { schema: runDagSchema, description: "The run's DAG.", examples: one('The DAG it ran', exampleRunDag) },
  },
  {
    operationId: 'retryRun',
    method: 'post',
    path: '/v2/jobs/{job_id}/runs/{run_id}/retry',
    tag: 'Runs',
    status: 202,
    headers: ['Location'],
    summary: 'Retry Run',
    description:
      'Starts a new run of the job (`trigger: retry`) with the parameters the given run ran with, and the pipeline as ' +
      "it is now, under the job's concurrency policy as Trigger Run. The run retried must have ended (`succeeded`, " +
      '`failed` or `canceled`): 409 `run_in_progress` while it is queued or running.',
    params: runId,
    response: {
      schema: runSchema,
      description: 'The new run, queued; follow it at `Location`.',
      examples: one('Queued', { ...exampleRunQueued, trigger: 'retry' }),
    },
    errors: ['pipeline_invalid', 'run_in_progress'],
  },
  {
    operationId: 'cancelRun',
    method: 'post',
    path: '/v2/jobs/{job_id}/runs/{run_id}/cancel',
    tag: 'Runs',
    status: 200,
    summary: 'Cancel Run',
    description:
      'The run is `canceled` at once and its executor stops within a second. 409 `run_finished` when it is over.',
    params: runId,
    response: {
      schema: runSchema,
      description: 'The run, canceled.',
      examples: one('Canceled', {
        ...exampleRunQueued,
        status: 'canceled',
        finished_at: '2026-11-22T10:15:01.000Z',
        duration_ms: 1000,
        nodes: exampleRunQueued.nodes.map((n) => ({ ...n, status: 'canceled' })),
      }),
    },
    errors: ['run_finished'],
  },
];
