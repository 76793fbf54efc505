import { Controller, Delete, Get, Param, Put, Req, Res } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { pipelineCreateSchema, pipelineListQuerySchema, pipelineUpdateSchema } from '@conduit/contracts';
import { BackendClient } from '../forwarding/backend.client.js';
import { LIST_QUERY, Operation } from '../openapi/operation.decorator.js';
import { ResourceForwarder } from '../forwarding/resource-forwarder.js';
import { PROJECT_REFERENCE } from '../forwarding/reference-checks.js';
import { IdempotentPost } from '../idempotency/idempotent-post.decorator.js';

@ApiTags('Pipelines')
@Controller('v2/pipelines')
export class PipelinesController {
  private readonly pipelines: ResourceForwarder;

  constructor(backend: BackendClient) {
    this.pipelines = new ResourceForwarder(backend, {
      kind: 'pipeline',
      path: '/v2/pipelines',
      noun: 'pipeline',
      create: pipelineCreateSchema,
      update: pipelineUpdateSchema,
      listQuery: pipelineListQuerySchema,
      rpc: 'catalog.pipelines',
      references: [PROJECT_REFERENCE],
    });
  }

  @Get()
  @Operation({ summary: 'List Pipelines', status: 200, query: { ...LIST_QUERY, project_id: 'only this project' } })
  list(@Req() req: FastifyRequest) {
    return this.pipelines.list(req);
  }

  @IdempotentPost()
  @Operation({
    summary: 'Create Pipeline',
    description:
      'Stores the pipeline and validates its DAG. Only a DAG of the wrong shape is refused (422); every other ' +
      'problem is stored as `status: invalid` with the validation, so a draft can be saved and fixed.',
    status: 201,
    body: pipelineCreateSchema,
    errors: [409, 413, 415, 422],
  })
  create(@Req() req: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply) {
    return this.pipelines.create(req, reply);
  }

  @Get(':pipeline_id')
  @Operation({ summary: 'Get Pipeline', status: 200, params: ['pipeline_id'], errors: [404] })
  get(@Param('pipeline_id') id: string, @Req() req: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply) {
    return this.pipelines.get(id, req, reply);
  }

  @Put(':pipeline_id')
  @Operation({
    summary: 'Update Pipeline',
    description: 'Replaces name, description, dag and project_id; the version goes up by one. Honours If-Match.',
    status: 200,
    body: pipelineUpdateSchema,
    params: ['pipeline_id'],
    errors: [404, 409, 412, 413, 415, 422],
  })
  update(@Param('pipeline_id') id: string, @Req() req: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply) {
    return this.pipelines.update(id, req, reply);
  }

  @Delete(':pipeline_id')
  @Operation({ summary: 'Delete Pipeline', status: 204, params: ['pipeline_id'], errors: [404, 409] })
  async remove(@Param('pipeline_id') id: string, @Req() req: FastifyRequest) {
    await this.pipelines.remove(id, req);
  }

  @IdempotentPost(':pipeline_id/validate')
  @Operation({
    summary: 'Validate Pipeline',
    description: 'Validates the DAG and stores the result; an invalid DAG is still a 200 with `valid: false`.',
    status: 200,
    params: ['pipeline_id'],
    errors: [404],
  })
  validate(@Param('pipeline_id') id: string, @Req() req: FastifyRequest) {
    return this.pipelines.action('validate', id, req);
  }
}
