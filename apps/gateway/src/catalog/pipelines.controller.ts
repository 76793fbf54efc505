import { Controller, Delete, Get, Param, Put, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  parseOrThrow,
  pipelineCreateSchema,
  pipelineListQuerySchema,
  pipelineUpdateSchema,
  pipelineValidateSchema,
} from '@conduit/contracts';
import { BackendClient } from '../forwarding/backend.client.js';
import { Operation } from '../openapi/operation.decorator.js';
import { ResourceForwarder } from '../forwarding/resource-forwarder.js';
import { PROJECT_REFERENCE } from '../forwarding/reference-checks.js';
import { DAG_SHAPE } from '../forwarding/nested-checks.js';
import { IdempotentPost } from '../idempotency/idempotent-post.decorator.js';

@Controller('v2/pipelines')
export class PipelinesController {
  private readonly pipelines: ResourceForwarder;

  constructor(private readonly backend: BackendClient) {
    this.pipelines = new ResourceForwarder(backend, {
      kind: 'pipeline',
      path: '/v2/pipelines',
      noun: 'pipeline',
      create: pipelineCreateSchema,
      update: pipelineUpdateSchema,
      listQuery: pipelineListQuerySchema,
      rpc: 'catalog.pipelines',
      references: [PROJECT_REFERENCE],
      nested: DAG_SHAPE,
    });
  }

  @Get()
  @Operation('listPipelines')
  list(@Req() req: FastifyRequest) {
    return this.pipelines.list(req);
  }

  @IdempotentPost()
  @Operation('createPipeline')
  create(@Req() req: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply) {
    return this.pipelines.create(req, reply);
  }

  @Get(':pipeline_id')
  @Operation('getPipeline')
  get(@Param('pipeline_id') id: string, @Req() req: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply) {
    return this.pipelines.get(id, req, reply);
  }

  @Put(':pipeline_id')
  @Operation('updatePipeline')
  update(
    @Param('pipeline_id') id: string,
    @Req() req: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    return this.pipelines.update(id, req, reply);
  }

  @Delete(':pipeline_id')
  @Operation('deletePipeline')
  async remove(@Param('pipeline_id') id: string, @Req() req: FastifyRequest) {
    await this.pipelines.remove(id, req);
  }

  @IdempotentPost(':pipeline_id/validate')
  @Operation('validatePipeline')
  async validate(@Param('pipeline_id') id: string, @Req() req: FastifyRequest) {
    this.pipelines.checkId(id);
    // With `dag`, a draft validated without being stored; without a body, the saved DAG (docs/api-decisions.md).
    const { dag } = parseOrThrow(pipelineValidateSchema, req.body ?? {});
    const data = dag === undefined ? { id } : { id, dag };
    return (await this.backend.call('catalog.pipelines.validate', data, req)).data;
  }
}
