import { Controller, Inject } from '@nestjs/common';
import type { Logger } from 'pino';
import type { RpcContext, RpcData } from '@conduit/contracts';
import { JobsService } from './jobs.service.js';
import { SCHEDULER_LOGGER } from '../common/tokens.js';
import { RpcRoute } from '@conduit/service-kit';

@Controller()
export class JobsController {
  constructor(
    private readonly jobs: JobsService,
    @Inject(SCHEDULER_LOGGER) readonly logger: Logger,
  ) {}

  @RpcRoute('scheduler.jobs.create')
  create(d: RpcData<'scheduler.jobs.create'>, ctx: RpcContext) {
    return this.jobs.create(ctx, d.body);
  }

  @RpcRoute('scheduler.jobs.list')
  list(d: RpcData<'scheduler.jobs.list'>, ctx: RpcContext) {
    return this.jobs.list(ctx.tenant_id, d.query);
  }

  @RpcRoute('scheduler.jobs.get')
  get(d: RpcData<'scheduler.jobs.get'>, ctx: RpcContext) {
    return this.jobs.get(ctx.tenant_id, d.id);
  }

  @RpcRoute('scheduler.jobs.update')
  update(d: RpcData<'scheduler.jobs.update'>, ctx: RpcContext) {
    return this.jobs.update(ctx, d.id, d.body, d.if_match);
  }

  @RpcRoute('scheduler.jobs.delete')
  delete(d: RpcData<'scheduler.jobs.delete'>, ctx: RpcContext) {
    return this.jobs.delete(ctx.tenant_id, d.id, d.if_match);
  }

  @RpcRoute('scheduler.jobs.pause')
  pause(d: RpcData<'scheduler.jobs.pause'>, ctx: RpcContext) {
    return this.jobs.pause(ctx.tenant_id, d.id);
  }

  @RpcRoute('scheduler.jobs.resume')
  resume(d: RpcData<'scheduler.jobs.resume'>, ctx: RpcContext) {
    return this.jobs.resume(ctx.tenant_id, d.id);
  }

  @RpcRoute('scheduler.jobs.usage')
  usage(d: RpcData<'scheduler.jobs.usage'>, ctx: RpcContext) {
    return this.jobs.usage(ctx.tenant_id, d.pipeline_id);
  }
}
