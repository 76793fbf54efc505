import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import type { Logger } from 'pino';
import { handleRpc } from '@conduit/contracts';
import { RunLogsService } from './run-logs.service.js';
import { MONITORING_LOGGER } from '../common/tokens.js';
import { reportUnexpected } from '../common/unexpected-error.js';

@Controller()
export class RunLogsController {
  constructor(
    private readonly logs: RunLogsService,
    @Inject(MONITORING_LOGGER) private readonly logger: Logger,
  ) {}

  @MessagePattern('monitoring.logs.list')
  list(@Payload() message: unknown) {
    const p = 'monitoring.logs.list';
    return handleRpc(p, message, (d, ctx) => this.logs.list({ tenantId: ctx.tenant_id, jobId: d.job_id, runId: d.run_id }, d.query), reportUnexpected(this.logger, p));
  }

  @MessagePattern('monitoring.logs.tail')
  tail(@Payload() message: unknown) {
    const p = 'monitoring.logs.tail';
    return handleRpc(
      p,
      message,
      (d, ctx) => this.logs.tail({ tenantId: ctx.tenant_id, jobId: d.job_id, runId: d.run_id }, { afterSeq: d.after_seq, level: d.level, nodeId: d.node_id }),
      reportUnexpected(this.logger, p),
    );
  }
}
