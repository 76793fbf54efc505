import type { ClientProxy } from '@nestjs/microservices';
import { AppError, isRpcReply, newId } from '@conduit/contracts';
import { rpcCall } from '@conduit/rpc-streams';
import type { PipelineUsage } from './pipeline-usage.js';

/** Jobs belong to the scheduler: ask it whether any job of the tenant still runs this pipeline. */
export class SchedulerPipelineUsage implements PipelineUsage {
  constructor(private readonly scheduler: ClientProxy) {}

  async isInUse(tenantId: string, pipelineId: string): Promise<boolean> {
    const ctx = { tenant_id: tenantId, scopes: ['read'], request_id: newId('request') };
    let reply: unknown;
    try {
      reply = await rpcCall(this.scheduler, 'scheduler.jobs.usage', { ctx, data: { pipeline_id: pipelineId } });
    } catch {
      throw new AppError('service_unavailable', 'the scheduler did not answer whether a job uses this pipeline');
    }
    if (!isRpcReply(reply) || !reply.ok) throw new AppError('service_unavailable', 'the scheduler could not answer');
    return ((reply.data as { jobs?: number }).jobs ?? 0) > 0;
  }
}
