import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import type { Logger } from 'pino';
import { handleRpc } from '@conduit/contracts';
import { AlertsService } from './alerts.service.js';
import { MONITORING_LOGGER } from '../common/tokens.js';
import { reportUnexpected } from '../common/unexpected-error.js';

@Controller()
export class AlertsController {
  constructor(
    private readonly alerts: AlertsService,
    @Inject(MONITORING_LOGGER) private readonly logger: Logger,
  ) {}

  @MessagePattern('monitoring.alerts.list')
  list(@Payload() message: unknown) {
    const p = 'monitoring.alerts.list';
    return handleRpc(p, message, (d, ctx) => this.alerts.list(ctx.tenant_id, d.query), reportUnexpected(this.logger, p));
  }
}
