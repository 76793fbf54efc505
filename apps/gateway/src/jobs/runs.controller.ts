import { Controller, Get, Param, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  AppError,
  isId,
  parseOrThrow,
  parseQueryOrThrow,
  runListQuerySchema,
  runTriggerSchema,
} from '@conduit/contracts';
import { BackendClient } from '../forwarding/backend.client.js';
import { Operation } from '../openapi/operation.decorator.js';
import { IdempotentPost } from '../idempotency/idempotent-post.decorator.js';

function checkIds(jobId: string, runId?: string): void {
  if (!isId('job', jobId)) throw new AppError('not_found', 'no job with that id');
  if (runId !== undefined && !isId('run', runId)) throw new AppError('not_found', 'no run with that id');
}

@Controller('v2/jobs/:job_id')
export class RunsController {
  constructor(private readonly backend: BackendClient) {}

  @IdempotentPost('run')
  @Operation('triggerRun')
  async trigger(
    @Param('job_id') jobId: string,
    @Req() req: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    checkIds(jobId);
    const body = parseOrThrow(runTriggerSchema, req.body ?? {});
    const trigger = { job_id: jobId, body };
    const run = (await this.backend.call('scheduler.runs.trigger', trigger, req, { createsResource: true })).data;
    reply.header('location', `/v2/jobs/${jobId}/runs/${run.id}`);
    return run;
  }

  @Get('runs')
  @Operation('listRuns')
  async list(@Param('job_id') jobId: string, @Req() req: FastifyRequest) {
    checkIds(jobId);
    const query = parseQueryOrThrow(runListQuerySchema, req.query ?? {});
    return (await this.backend.call('scheduler.runs.list', { job_id: jobId, query }, req)).data;
  }

  @Get('runs/:run_id')
  @Operation('getRun')
  async get(@Param('job_id') jobId: string, @Param('run_id') runId: string, @Req() req: FastifyRequest) {
    checkIds(jobId, runId);
    return (await this.backend.call('scheduler.runs.get', { job_id: jobId, run_id: runId }, req)).data;
  }

  @Get('runs/:run_id/dag')
  @Operation('getRunDag')
  async dag(@Param('job_id') jobId: string, @Param('run_id') runId: string, @Req() req: FastifyRequest) {
    checkIds(jobId, runId);
    return (await this.backend.call('scheduler.runs.dag', { job_id: jobId, run_id: runId }, req)).data;
  }

  @IdempotentPost('runs/:run_id/retry')
  @Operation('retryRun')
  async retry(
    @Param('job_id') jobId: string,
    @Param('run_id') runId: string,
    @Req() req: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    checkIds(jobId, runId);
    const retry = { job_id: jobId, run_id: runId };
    const run = (await this.backend.call('scheduler.runs.retry', retry, req, { createsResource: true })).data;
    reply.header('location', `/v2/jobs/${jobId}/runs/${run.id}`);
    return run;
  }

  @IdempotentPost('runs/:run_id/cancel')
  @Operation('cancelRun')
  async cancel(@Param('job_id') jobId: string, @Param('run_id') runId: string, @Req() req: FastifyRequest) {
    checkIds(jobId, runId);
    return (await this.backend.call('scheduler.runs.cancel', { job_id: jobId, run_id: runId }, req)).data;
  }
}
