import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import type { Logger } from 'pino';
import { handleRpc } from '@conduit/contracts';
import { RunsService } from './runs.service.js';
import { SCHEDULER_LOGGER } from '../common/tokens.js';
import { reportUnexpected } from '../common/unexpected-error.js';

@Controller()
export class RunsController {
  constructor(
    private readonly runs: RunsService,
    @Inject(SCHEDULER_LOGGER) private readonly logger: Logger,
  ) {}

  @MessagePattern('scheduler.runs.trigger')
  trigger(@Payload() message: unknown) {
    const p = 'scheduler.runs.trigger';
    return handleRpc(p, message, (d, ctx) => this.runs.trigger(ctx, d.job_id, d.body), reportUnexpected(this.logger, p));
  }

  @MessagePattern('scheduler.runs.list')
  list(@Payload() message: unknown) {
    const p = 'scheduler.runs.list';
    return handleRpc(p, message, (d, ctx) => this.runs.list(ctx.tenant_id, d.job_id, d.query), reportUnexpected(this.logger, p));
  }

  @MessagePattern('scheduler.runs.get')
  get(@Payload() message: unknown) {
    const p = 'scheduler.runs.get';
    return handleRpc(p, message, (d, ctx) => this.runs.get(ctx.tenant_id, d.job_id, d.run_id), reportUnexpected(this.logger, p));
  }

  @MessagePattern('scheduler.runs.cancel')
  cancel(@Payload() message: unknown) {
    const p = 'scheduler.runs.cancel';
    return handleRpc(p, message, (d, ctx) => this.runs.cancel(ctx.tenant_id, d.job_id, d.run_id), reportUnexpected(this.logger, p));
  }
}
