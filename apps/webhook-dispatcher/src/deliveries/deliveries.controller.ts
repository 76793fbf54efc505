import { Controller, Inject } from '@nestjs/common';
import type { Logger } from 'pino';
import type { RpcContext, RpcData } from '@conduit/contracts';
import { DeliveriesService } from './deliveries.service.js';
import { DISPATCHER_LOGGER } from '../common/tokens.js';
import { RpcRoute } from '@conduit/service-kit';

@Controller()
export class DeliveriesController {
  constructor(
    private readonly deliveries: DeliveriesService,
    @Inject(DISPATCHER_LOGGER) readonly logger: Logger,
  ) {}

  @RpcRoute('webhooks.deliveries.list')
  list(d: RpcData<'webhooks.deliveries.list'>, ctx: RpcContext) {
    return this.deliveries.list(ctx.tenant_id, d.webhook_id, d.query);
  }
}
