import { Controller, Inject } from '@nestjs/common';
import type { Logger } from 'pino';
import type { RpcContext, RpcData } from '@conduit/contracts';
import { WebhooksService } from './webhooks.service.js';
import { DISPATCHER_LOGGER } from '../common/tokens.js';
import { RpcRoute } from '@conduit/service-kit';

@Controller()
export class WebhooksController {
  constructor(
    private readonly webhooks: WebhooksService,
    @Inject(DISPATCHER_LOGGER) readonly logger: Logger,
  ) {}

  @RpcRoute('webhooks.webhooks.create')
  create(d: RpcData<'webhooks.webhooks.create'>, ctx: RpcContext) {
    return this.webhooks.create(ctx.tenant_id, d.body, ctx);
  }

  @RpcRoute('webhooks.webhooks.list')
  list(d: RpcData<'webhooks.webhooks.list'>, ctx: RpcContext) {
    return this.webhooks.list(ctx.tenant_id, d.query);
  }

  @RpcRoute('webhooks.webhooks.get')
  get(d: RpcData<'webhooks.webhooks.get'>, ctx: RpcContext) {
    return this.webhooks.get(ctx.tenant_id, d.id);
  }

  @RpcRoute('webhooks.webhooks.update')
  update(d: RpcData<'webhooks.webhooks.update'>, ctx: RpcContext) {
    return this.webhooks.update(ctx.tenant_id, d.id, d.body, d.if_match);
  }

  @RpcRoute('webhooks.webhooks.delete')
  delete(d: RpcData<'webhooks.webhooks.delete'>, ctx: RpcContext) {
    return this.webhooks.delete(ctx.tenant_id, d.id, d.if_match);
  }

  @RpcRoute('webhooks.webhooks.test')
  test(d: RpcData<'webhooks.webhooks.test'>, ctx: RpcContext) {
    return this.webhooks.test(ctx.tenant_id, d.id);
  }
}
