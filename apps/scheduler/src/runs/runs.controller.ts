import { Controller, Inject } from '@nestjs/common';
import type { Logger } from 'pino';
import type { RpcContext, RpcData } from '@conduit/contracts';
import { RunsService } from './runs.service.js';
import { RunClaims } from './run-claims.js';
import { SCHEDULER_LOGGER } from '../common/tokens.js';
import { RpcRoute } from '@conduit/service-kit';

@Controller()
export class RunsController {
  constructor(
    private readonly runs: RunsService,
    private readonly claims: RunClaims,
    @Inject(SCHEDULER_LOGGER) readonly logger: Logger,
  ) {}

  @RpcRoute('scheduler.runs.trigger')
  trigger(d: RpcData<'scheduler.runs.trigger'>, ctx: RpcContext) {
    return this.runs.trigger(ctx, d.job_id, d.body);
  }

  @RpcRoute('scheduler.runs.list')
  list(d: RpcData<'scheduler.runs.list'>, ctx: RpcContext) {
    return this.runs.list(ctx.tenant_id, d.job_id, d.query);
  }

  @RpcRoute('scheduler.runs.get')
  get(d: RpcData<'scheduler.runs.get'>, ctx: RpcContext) {
    return this.runs.get(ctx.tenant_id, d.job_id, d.run_id);
  }

  @RpcRoute('scheduler.runs.dag')
  dag(d: RpcData<'scheduler.runs.dag'>, ctx: RpcContext) {
    return this.runs.dag(ctx.tenant_id, d.job_id, d.run_id);
  }

  @RpcRoute('scheduler.runs.cancel')
  cancel(d: RpcData<'scheduler.runs.cancel'>, ctx: RpcContext) {
    return this.runs.cancel(ctx.tenant_id, d.job_id, d.run_id);
  }

  @RpcRoute('scheduler.runs.retry')
  retry(d: RpcData<'scheduler.runs.retry'>, ctx: RpcContext) {
    return this.runs.retry(ctx, d.job_id, d.run_id);
  }

  @RpcRoute('scheduler.runs.claim')
  claim(d: RpcData<'scheduler.runs.claim'>, ctx: RpcContext) {
    return this.claims.claim(ctx.tenant_id, d);
  }

  @RpcRoute('scheduler.runs.renew')
  renew(d: RpcData<'scheduler.runs.renew'>, ctx: RpcContext) {
    return this.claims.renew(ctx.tenant_id, d);
  }

  @RpcRoute('scheduler.runs.release')
  release(d: RpcData<'scheduler.runs.release'>, ctx: RpcContext) {
    return this.claims.release(ctx.tenant_id, d);
  }
}
