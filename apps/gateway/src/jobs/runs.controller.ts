import { Controller, Get, Param, Req, Res } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { type Run, AppError, isId, parseOrThrow, parseQueryOrThrow, runListQuerySchema, runTriggerSchema } from '@conduit/contracts';
import { BackendClient } from '../forwarding/backend.client.js';
import { LIST_QUERY, Operation } from '../openapi/operation.decorator.js';
import { IdempotentPost } from '../idempotency/idempotent-post.decorator.js';

function checkIds(jobId: string, runId?: string): void {
  if (!isId('job', jobId)) throw new AppError('not_found', 'no job with that id');
  if (runId !== undefined && !isId('run', runId)) throw new AppError('not_found', 'no run with that id');
}

@ApiTags('Runs')
@Controller('v2/jobs/:job_id')
export class RunsController {
  constructor(private readonly backend: BackendClient) {}

  @IdempotentPost('run')
  @Operation({
    summary: 'Trigger Run',
    description:
      'Starts a run of the job with the pipeline as it is now. Optional body `{ parameters }` overrides the ' +
      "job's defaults key by key. 409 `pipeline_invalid` when the pipeline does not validate, 409 `run_in_progress` " +
      'under the `forbid` policy; `replace` cancels the active run first.',
    status: 202,
    body: runTriggerSchema,
    bodyRequired: false,
    params: ['job_id'],
    errors: [404, 409, 413, 415, 422],
  })
  async trigger(@Param('job_id') jobId: string, @Req() req: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply) {
    checkIds(jobId);
    const body = parseOrThrow(runTriggerSchema, req.body ?? {});
    const trigger = { job_id: jobId, body };
    const run = (await this.backend.call<'scheduler.runs.trigger', Run>('scheduler.runs.trigger', trigger, req, { createsResource: true })).data;
    reply.header('location', `/v2/jobs/${jobId}/runs/${run.id}`);
    return run;
  }

  @Get('runs')
  @Operation({ summary: 'List Runs', status: 200, params: ['job_id'], query: { ...LIST_QUERY, status: 'only runs in this status' }, errors: [404] })
  async list(@Param('job_id') jobId: string, @Req() req: FastifyRequest) {
    checkIds(jobId);
    const query = parseQueryOrThrow(runListQuerySchema, req.query ?? {});
    return (await this.backend.call('scheduler.runs.list', { job_id: jobId, query }, req)).data;
  }

  @Get('runs/:run_id')
  @Operation({
    summary: 'Get Run Status',
    description:
      'The run with its nodes. Each node carries `columns`: its output columns as `[{ name, type, source_type? }]` ' +
      "(`type` is DuckDB's type as SQL, e.g. `DECIMAL(12,2)`, or null where rows went straight from PostgreSQL to PostgreSQL " +
      "as CSV; `source_type` the source database's own, where a source declared it; a sink's are the columns it wrote), at most 1,000, names and types cut at 256 characters, never " +
      'any row value; `null` until the node has produced output.',
    status: 200,
    params: ['job_id', 'run_id'],
    errors: [404],
  })
  async get(@Param('job_id') jobId: string, @Param('run_id') runId: string, @Req() req: FastifyRequest) {
    checkIds(jobId, runId);
    return (await this.backend.call('scheduler.runs.get', { job_id: jobId, run_id: runId }, req)).data;
  }

  @IdempotentPost('runs/:run_id/cancel')
  @Operation({
    summary: 'Cancel Run',
    description: 'The run is `canceled` at once and its executor stops within a second. 409 `run_finished` when it is over.',
    status: 200,
    params: ['job_id', 'run_id'],
    errors: [404, 409],
  })
  async cancel(@Param('job_id') jobId: string, @Param('run_id') runId: string, @Req() req: FastifyRequest) {
    checkIds(jobId, runId);
    return (await this.backend.call('scheduler.runs.cancel', { job_id: jobId, run_id: runId }, req)).data;
  }
}
