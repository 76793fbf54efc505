import { Controller, Inject } from '@nestjs/common';
import type { Logger } from 'pino';
import type { RpcContext, RpcData } from '@conduit/contracts';
import { RpcRoute } from '@conduit/service-kit';
import { RunLogsService } from './run-logs.service.js';
import { MONITORING_LOGGER } from '../common/tokens.js';

@Controller()
export class RunLogsController {
  constructor(
    private readonly logs: RunLogsService,
    @Inject(MONITORING_LOGGER) readonly logger: Logger,
  ) {}

  @RpcRoute('monitoring.logs.list')
  list(d: RpcData<'monitoring.logs.list'>, ctx: RpcContext) {
    return this.logs.list({ tenantId: ctx.tenant_id, jobId: d.job_id, runId: d.run_id }, d.query);
  }

  @RpcRoute('monitoring.logs.tail')
  tail(d: RpcData<'monitoring.logs.tail'>, ctx: RpcContext) {
    return this.logs.tail(
      { tenantId: ctx.tenant_id, jobId: d.job_id, runId: d.run_id },
      { afterSeq: d.after_seq, level: d.level, nodeId: d.node_id },
    );
  }
}
