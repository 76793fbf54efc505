import type { ClientProxy } from '@nestjs/microservices';
import type { RecordedSchemasReply } from '@conduit/contracts';
import { newId } from '@conduit/service-kit';
import { RpcClient } from '@conduit/rpc-streams';
import type { RecordedSchemas } from './recorded-schemas.js';

/**
 * A create, update or validate waits this long for the scheduler, then goes on without schemas (with a warning):
 * checking SQL against earlier runs' columns is a help, never a reason for a save to fail or stall.
 */
export const RECORDED_SCHEMAS_DEADLINE_MS = 500;

/** Runs belong to the scheduler: ask it what recent runs of the pipeline recorded for its sources. */
export class SchedulerRecordedSchemas implements RecordedSchemas {
  private readonly rpc: RpcClient;

  constructor(
    scheduler: ClientProxy,
    private readonly deadlineMs = RECORDED_SCHEMAS_DEADLINE_MS,
  ) {
    this.rpc = new RpcClient(scheduler);
  }

  /** Null when the scheduler cannot tell, whatever the reason (timeout, problem, malformed reply). */
  async latest(tenantId: string, pipelineId: string): Promise<RecordedSchemasReply | null> {
    const ctx = { tenant_id: tenantId, scopes: ['read' as const], request_id: newId('request') };
    try {
      return await this.rpc.call(
        'scheduler.runs.schemas',
        { ctx, data: { pipeline_id: pipelineId } },
        { timeoutMs: this.deadlineMs },
      );
    } catch {
      return null;
    }
  }
}
