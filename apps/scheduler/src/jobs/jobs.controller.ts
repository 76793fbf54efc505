import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import type { Logger } from 'pino';
import { handleRpc } from '@conduit/contracts';
import { JobsService } from './jobs.service.js';
import { SCHEDULER_LOGGER } from '../common/tokens.js';
import { reportUnexpected } from '../common/unexpected-error.js';

@Controller()
export class JobsController {
  constructor(
    private readonly jobs: JobsService,
    @Inject(SCHEDULER_LOGGER) private readonly logger: Logger,
  ) {}

  @MessagePattern('scheduler.jobs.create')
  create(@Payload() message: unknown) {
    const p = 'scheduler.jobs.create';
    return handleRpc(p, message, (d, ctx) => this.jobs.create(ctx, d.body), reportUnexpected(this.logger, p));
  }

  @MessagePattern('scheduler.jobs.list')
  list(@Payload() message: unknown) {
    const p = 'scheduler.jobs.list';
    return handleRpc(p, message, (d, ctx) => this.jobs.list(ctx.tenant_id, d.query), reportUnexpected(this.logger, p));
  }

  @MessagePattern('scheduler.jobs.get')
  get(@Payload() message: unknown) {
    const p = 'scheduler.jobs.get';
    return handleRpc(p, message, (d, ctx) => this.jobs.get(ctx.tenant_id, d.id), reportUnexpected(this.logger, p));
  }

  @MessagePattern('scheduler.jobs.update')
  update(@Payload() message: unknown) {
    const p = 'scheduler.jobs.update';
    return handleRpc(p, message, (d, ctx) => this.jobs.update(ctx, d.id, d.body, d.if_match), reportUnexpected(this.logger, p));
  }

  @MessagePattern('scheduler.jobs.delete')
  delete(@Payload() message: unknown) {
    const p = 'scheduler.jobs.delete';
    return handleRpc(p, message, (d, ctx) => this.jobs.delete(ctx.tenant_id, d.id), reportUnexpected(this.logger, p));
  }

  @MessagePattern('scheduler.jobs.pause')
  pause(@Payload() message: unknown) {
    const p = 'scheduler.jobs.pause';
    return handleRpc(p, message, (d, ctx) => this.jobs.pause(ctx.tenant_id, d.id), reportUnexpected(this.logger, p));
  }

  @MessagePattern('scheduler.jobs.resume')
  resume(@Payload() message: unknown) {
    const p = 'scheduler.jobs.resume';
    return handleRpc(p, message, (d, ctx) => this.jobs.resume(ctx.tenant_id, d.id), reportUnexpected(this.logger, p));
  }

  @MessagePattern('scheduler.jobs.usage')
  usage(@Payload() message: unknown) {
    const p = 'scheduler.jobs.usage';
    return handleRpc(p, message, (d, ctx) => this.jobs.usage(ctx.tenant_id, d.pipeline_id), reportUnexpected(this.logger, p));
  }
}
