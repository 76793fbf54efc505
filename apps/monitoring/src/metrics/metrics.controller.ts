import { Controller, Inject } from '@nestjs/common';
import type { Logger } from 'pino';
import type { RpcContext, RpcData } from '@conduit/contracts';
import { RpcRoute } from '@conduit/service-kit';
import { MetricsService } from './metrics.service.js';
import { MONITORING_LOGGER } from '../common/tokens.js';

@Controller()
export class MetricsController {
  constructor(
    private readonly metrics: MetricsService,
    @Inject(MONITORING_LOGGER) readonly logger: Logger,
  ) {}

  @RpcRoute('monitoring.metrics.get')
  get(d: RpcData<'monitoring.metrics.get'>, ctx: RpcContext) {
    return this.metrics.get(ctx.tenant_id, d.query);
  }
}
