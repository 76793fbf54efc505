import { Controller, Inject } from '@nestjs/common';
import type { Logger } from 'pino';
import type { RpcContext, RpcData } from '@conduit/contracts';
import { ProjectsService } from './projects.service.js';
import { CATALOG_LOGGER } from '../common/tokens.js';
import { RpcRoute } from '@conduit/service-kit';

@Controller()
export class ProjectsController {
  constructor(
    private readonly projects: ProjectsService,
    @Inject(CATALOG_LOGGER) readonly logger: Logger,
  ) {}

  @RpcRoute('catalog.projects.create')
  create(d: RpcData<'catalog.projects.create'>, ctx: RpcContext) {
    return this.projects.create(ctx.tenant_id, d.body, ctx);
  }

  @RpcRoute('catalog.projects.list')
  list(d: RpcData<'catalog.projects.list'>, ctx: RpcContext) {
    return this.projects.list(ctx.tenant_id, d.query);
  }

  @RpcRoute('catalog.projects.get')
  get(d: RpcData<'catalog.projects.get'>, ctx: RpcContext) {
    return this.projects.get(ctx.tenant_id, d.id);
  }

  @RpcRoute('catalog.projects.update')
  update(d: RpcData<'catalog.projects.update'>, ctx: RpcContext) {
    return this.projects.update(ctx.tenant_id, d.id, d.body, d.if_match);
  }

  @RpcRoute('catalog.projects.delete')
  delete(d: RpcData<'catalog.projects.delete'>, ctx: RpcContext) {
    return this.projects.delete(ctx.tenant_id, d.id, d.if_match);
  }
}
