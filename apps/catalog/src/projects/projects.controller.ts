import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import type { Logger } from 'pino';
import { handleRpc } from '@conduit/contracts';
import { ProjectsService } from './projects.service.js';
import { CATALOG_LOGGER } from '../common/tokens.js';
import { reportUnexpected } from '../common/unexpected-error.js';

@Controller()
export class ProjectsController {
  constructor(
    private readonly projects: ProjectsService,
    @Inject(CATALOG_LOGGER) private readonly logger: Logger,
  ) {}

  @MessagePattern('catalog.projects.create')
  create(@Payload() message: unknown) {
    const p = 'catalog.projects.create';
    return handleRpc(p, message, (d, ctx) => this.projects.create(ctx.tenant_id, d.body), reportUnexpected(this.logger, p));
  }

  @MessagePattern('catalog.projects.list')
  list(@Payload() message: unknown) {
    const p = 'catalog.projects.list';
    return handleRpc(p, message, (d, ctx) => this.projects.list(ctx.tenant_id, d.query), reportUnexpected(this.logger, p));
  }

  @MessagePattern('catalog.projects.get')
  get(@Payload() message: unknown) {
    const p = 'catalog.projects.get';
    return handleRpc(p, message, (d, ctx) => this.projects.get(ctx.tenant_id, d.id), reportUnexpected(this.logger, p));
  }

  @MessagePattern('catalog.projects.update')
  update(@Payload() message: unknown) {
    const p = 'catalog.projects.update';
    return handleRpc(p, message, (d, ctx) => this.projects.update(ctx.tenant_id, d.id, d.body, d.if_match), reportUnexpected(this.logger, p));
  }

  @MessagePattern('catalog.projects.delete')
  delete(@Payload() message: unknown) {
    const p = 'catalog.projects.delete';
    return handleRpc(p, message, (d, ctx) => this.projects.delete(ctx.tenant_id, d.id), reportUnexpected(this.logger, p));
  }
}
