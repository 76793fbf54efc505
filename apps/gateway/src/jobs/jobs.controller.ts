import { Controller, Delete, Get, Param, Put, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { jobCreateSchema, jobListQuerySchema, jobUpdateSchema } from '@conduit/contracts';
import { BackendClient } from '../forwarding/backend.client.js';
import { Operation } from '../openapi/operation.decorator.js';
import { ResourceForwarder } from '../forwarding/resource-forwarder.js';
import { PIPELINE_REFERENCE } from '../forwarding/reference-checks.js';
import { IdempotentPost } from '../idempotency/idempotent-post.decorator.js';

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
  @Operation('listJobs')
  list(@Req() req: FastifyRequest) {
    return this.jobs.list(req);
  }

  @IdempotentPost()
  @Operation('createJob')
  create(@Req() req: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply) {
    return this.jobs.create(req, reply);
  }

  @Get(':job_id')
  @Operation('getJob')
  get(@Param('job_id') id: string, @Req() req: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply) {
    return this.jobs.get(id, req, reply);
  }

  @Put(':job_id')
  @Operation('updateJob')
  update(@Param('job_id') id: string, @Req() req: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply) {
    return this.jobs.update(id, req, reply);
  }

  @Delete(':job_id')
  @Operation('deleteJob')
  async remove(@Param('job_id') id: string, @Req() req: FastifyRequest) {
    await this.jobs.remove(id, req);
  }

  @IdempotentPost(':job_id/pause')
  @Operation('pauseJob')
  pause(@Param('job_id') id: string, @Req() req: FastifyRequest) {
    return this.jobs.action('pause', id, req);
  }

  @IdempotentPost(':job_id/resume')
  @Operation('resumeJob')
  resume(@Param('job_id') id: string, @Req() req: FastifyRequest) {
    return this.jobs.action('resume', id, req);
  }
}
