import { Controller, Inject } from '@nestjs/common';
import type { Logger } from 'pino';
import type { RpcContext, RpcData } from '@conduit/contracts';
import { RpcRoute } from '@conduit/service-kit';
import { AlertsService } from './alerts.service.js';
import { MONITORING_LOGGER } from '../common/tokens.js';

@Controller()
export class AlertsController {
  constructor(
    private readonly alerts: AlertsService,
    @Inject(MONITORING_LOGGER) readonly logger: Logger,
  ) {}

  @RpcRoute('monitoring.alerts.list')
  list(d: RpcData<'monitoring.alerts.list'>, ctx: RpcContext) {
    return this.alerts.list(ctx.tenant_id, d.query);
  }
}
