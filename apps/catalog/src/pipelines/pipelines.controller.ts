import { Controller, Inject } from '@nestjs/common';
import type { Logger } from 'pino';
import type { RpcContext, RpcData } from '@conduit/contracts';
import { PipelinesService } from './pipelines.service.js';
import { CATALOG_LOGGER } from '../common/tokens.js';
import { RpcRoute } from '@conduit/service-kit';

@Controller()
export class PipelinesController {
  constructor(
    private readonly pipelines: PipelinesService,
    @Inject(CATALOG_LOGGER) readonly logger: Logger,
  ) {}

  @RpcRoute('catalog.pipelines.create')
  create(d: RpcData<'catalog.pipelines.create'>, ctx: RpcContext) {
    return this.pipelines.create(ctx.tenant_id, d.body, ctx);
  }

  @RpcRoute('catalog.pipelines.list')
  list(d: RpcData<'catalog.pipelines.list'>, ctx: RpcContext) {
    return this.pipelines.list(ctx.tenant_id, d.query);
  }

  @RpcRoute('catalog.pipelines.get')
  get(d: RpcData<'catalog.pipelines.get'>, ctx: RpcContext) {
    return this.pipelines.get(ctx.tenant_id, d.id);
  }

  @RpcRoute('catalog.pipelines.update')
  update(d: RpcData<'catalog.pipelines.update'>, ctx: RpcContext) {
    return this.pipelines.update(ctx.tenant_id, d.id, d.body, d.if_match);
  }

  @RpcRoute('catalog.pipelines.delete')
  delete(d: RpcData<'catalog.pipelines.delete'>, ctx: RpcContext) {
    return this.pipelines.delete(ctx.tenant_id, d.id, d.if_match);
  }

  @RpcRoute('catalog.pipelines.validate')
  validate(d: RpcData<'catalog.pipelines.validate'>, ctx: RpcContext) {
    return d.dag === undefined
      ? this.pipelines.validate(ctx.tenant_id, d.id)
      : this.pipelines.validateDraft(ctx.tenant_id, d.id, d.dag);
  }

  @RpcRoute('catalog.pipelines.snapshot')
  snapshot(d: RpcData<'catalog.pipelines.snapshot'>, ctx: RpcContext) {
    return this.pipelines.snapshot(ctx.tenant_id, d.id);
  }
}
