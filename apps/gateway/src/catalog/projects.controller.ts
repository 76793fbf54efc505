import { Controller, Delete, Get, Param, Put, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { projectCreateSchema, projectListQuerySchema, projectUpdateSchema } from '@conduit/contracts';
import { BackendClient } from '../forwarding/backend.client.js';
import { Operation } from '../openapi/operation.decorator.js';
import { ResourceForwarder } from '../forwarding/resource-forwarder.js';
import { TEMPLATE_REFERENCE } from '../forwarding/reference-checks.js';
import { IdempotentPost } from '../idempotency/idempotent-post.decorator.js';

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
  @Operation('listProjects')
  list(@Req() req: FastifyRequest) {
    return this.projects.list(req);
  }

  @IdempotentPost()
  @Operation('createProject')
  create(@Req() req: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply) {
    return this.projects.create(req, reply);
  }

  @Get(':project_id')
  @Operation('getProject')
  get(@Param('project_id') id: string, @Req() req: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply) {
    return this.projects.get(id, req, reply);
  }

  @Put(':project_id')
  @Operation('updateProject')
  update(@Param('project_id') id: string, @Req() req: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply) {
    return this.projects.update(id, req, reply);
  }

  @Delete(':project_id')
  @Operation('deleteProject')
  async remove(@Param('project_id') id: string, @Req() req: FastifyRequest) {
    await this.projects.remove(id, req);
  }
}
