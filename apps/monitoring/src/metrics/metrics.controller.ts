import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import type { Logger } from 'pino';
import { handleRpc } from '@conduit/contracts';
import { MetricsService } from './metrics.service.js';
import { MONITORING_LOGGER } from '../common/tokens.js';
import { reportUnexpected } from '../common/unexpected-error.js';

@Controller()
export class MetricsController {
  constructor(
    private readonly metrics: MetricsService,
    @Inject(MONITORING_LOGGER) private readonly logger: Logger,
  ) {}

  @MessagePattern('monitoring.metrics.get')
  get(@Payload() message: unknown) {
    const p = 'monitoring.metrics.get';
    return handleRpc(p, message, (d, ctx) => this.metrics.get(ctx.tenant_id, d.query), reportUnexpected(this.logger, p));
  }
}
