import type { ClientProxy } from '@nestjs/microservices';
import { AppError } from '@conduit/contracts';
import { newId } from '@conduit/service-kit';
import { RpcClient, RpcRemoteError } from '@conduit/rpc-streams';
import type { PipelineUsage } from './pipeline-usage.js';

/** Jobs belong to the scheduler: ask it whether any job of the tenant still runs this pipeline. */
export class SchedulerPipelineUsage implements PipelineUsage {
  private readonly rpc: RpcClient;

  constructor(scheduler: ClientProxy) {
    this.rpc = new RpcClient(scheduler);
  }

  async isInUse(tenantId: string, pipelineId: string): Promise<boolean> {
    const ctx = { tenant_id: tenantId, scopes: ['read' as const], request_id: newId('request') };
    try {
      const usage = await this.rpc.call('scheduler.jobs.usage', { ctx, data: { pipeline_id: pipelineId } });
      return usage.jobs > 0;
    } catch (err) {
      // Unknown use is no use to count on: the delete is refused with a 503 rather than risked.
      if (err instanceof RpcRemoteError) throw new AppError('service_unavailable', 'the scheduler could not answer');
      throw new AppError('service_unavailable', 'the scheduler did not answer whether a job uses this pipeline');
    }
  }
}
