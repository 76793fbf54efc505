import { Controller, Delete, Get, Param, Put, Req, Res } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { projectCreateSchema, projectListQuerySchema, projectUpdateSchema } from '@conduit/contracts';
import { BackendClient } from '../forwarding/backend.client.js';
import { LIST_QUERY, Operation } from '../openapi/operation.decorator.js';
import { ResourceForwarder } from '../forwarding/resource-forwarder.js';
import { TEMPLATE_REFERENCE } from '../forwarding/reference-checks.js';
import { IdempotentPost } from '../idempotency/idempotent-post.decorator.js';

@ApiTags('Projects')
@Controller('v2/projects')
export class ProjectsController {
  private readonly projects: ResourceForwarder;

  constructor(backend: BackendClient) {
    this.projects = new ResourceForwarder(backend, {
      kind: 'project',
      path: '/v2/projects',
      noun: 'project',
      create: projectCreateSchema,
      update: projectUpdateSchema,
      listQuery: projectListQuerySchema,
      rpc: 'catalog.projects',
      references: [TEMPLATE_REFERENCE],
    });
  }

  @Get()
  @Operation({ summary: 'List Projects', status: 200, query: LIST_QUERY })
  list(@Req() req: FastifyRequest) {
    return this.projects.list(req);
  }

  @IdempotentPost()
  @Operation({
    summary: 'Create Project',
    description: 'Creates a project; with `template`, also the pipelines of that template (GET /v2/templates).',
    status: 201,
    body: projectCreateSchema,
    errors: [409, 413, 415, 422],
  })
  create(@Req() req: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply) {
    return this.projects.create(req, reply);
  }

  @Get(':project_id')
  @Operation({ summary: 'Get Project', status: 200, params: ['project_id'], errors: [404] })
  get(@Param('project_id') id: string, @Req() req: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply) {
    return this.projects.get(id, req, reply);
  }

  @Put(':project_id')
  @Operation({
    summary: 'Update Project',
    description: 'Replaces name and description. Honours If-Match with the ETag of a previous read.',
    status: 200,
    body: projectUpdateSchema,
    params: ['project_id'],
    errors: [404, 409, 412, 413, 415, 422],
  })
  update(@Param('project_id') id: string, @Req() req: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply) {
    return this.projects.update(id, req, reply);
  }

  @Delete(':project_id')
  @Operation({
    summary: 'Delete Project',
    description: '409 project_not_empty while pipelines or connectors belong to it.',
    status: 204,
    params: ['project_id'],
    errors: [404, 409],
  })
  async remove(@Param('project_id') id: string, @Req() req: FastifyRequest) {
    await this.projects.remove(id, req);
  }
}
