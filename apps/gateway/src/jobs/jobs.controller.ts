import { Controller, Delete, Get, Param, Put, Req, Res } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { jobCreateSchema, jobListQuerySchema, jobUpdateSchema } from '@conduit/contracts';
import { BackendClient } from '../forwarding/backend.client.js';
import { LIST_QUERY, Operation } from '../openapi/operation.decorator.js';
import { ResourceForwarder } from '../forwarding/resource-forwarder.js';
import { PIPELINE_REFERENCE } from '../forwarding/reference-checks.js';
import { IdempotentPost } from '../idempotency/idempotent-post.decorator.js';

@ApiTags('Jobs')
@Controller('v2/jobs')
export class JobsController {
  private readonly jobs: ResourceForwarder;

  constructor(backend: BackendClient) {
    this.jobs = new ResourceForwarder(backend, {
      kind: 'job',
      path: '/v2/jobs',
      noun: 'job',
      create: jobCreateSchema,
      update: jobUpdateSchema,
      listQuery: jobListQuerySchema,
      rpc: 'scheduler.jobs',
      references: [PIPELINE_REFERENCE],
    });
  }

  @Get()
  @Operation({
    summary: 'List Jobs',
    status: 200,
    query: { ...LIST_QUERY, pipeline_id: 'only jobs of this pipeline', status: 'active or paused' },
  })
  list(@Req() req: FastifyRequest) {
    return this.jobs.list(req);
  }

  @IdempotentPost()
  @Operation({
    summary: 'Create Job',
    description:
      '`schedule` is five cron fields (minute hour day-of-month month day-of-week) in `timezone` (IANA, default UTC), ' +
      'or null for a job run only by hand. A 422 `invalid_cron` names the field at fault.',
    status: 201,
    body: jobCreateSchema,
    errors: [409, 413, 415, 422],
  })
  create(@Req() req: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply) {
    return this.jobs.create(req, reply);
  }

  @Get(':job_id')
  @Operation({ summary: 'Get Job', status: 200, params: ['job_id'], errors: [404] })
  get(@Param('job_id') id: string, @Req() req: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply) {
    return this.jobs.get(id, req, reply);
  }

  @Put(':job_id')
  @Operation({
    summary: 'Update Job',
    description: 'Replaces every mutable field; the schedule takes effect at once. Honours If-Match.',
    status: 200,
    body: jobUpdateSchema,
    params: ['job_id'],
    errors: [404, 409, 412, 413, 415, 422],
  })
  update(@Param('job_id') id: string, @Req() req: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply) {
    return this.jobs.update(id, req, reply);
  }

  @Delete(':job_id')
  @Operation({ summary: 'Delete Job', description: 'Cancels its active runs first.', status: 204, params: ['job_id'], errors: [404] })
  async remove(@Param('job_id') id: string, @Req() req: FastifyRequest) {
    await this.jobs.remove(id, req);
  }

  @IdempotentPost(':job_id/pause')
  @Operation({ summary: 'Pause Job', description: 'Stops scheduled runs; triggers by hand still work.', status: 200, params: ['job_id'], errors: [404] })
  pause(@Param('job_id') id: string, @Req() req: FastifyRequest) {
    return this.jobs.action('pause', id, req);
  }

  @IdempotentPost(':job_id/resume')
  @Operation({ summary: 'Resume Job', status: 200, params: ['job_id'], errors: [404] })
  resume(@Param('job_id') id: string, @Req() req: FastifyRequest) {
    return this.jobs.action('resume', id, req);
  }
}
