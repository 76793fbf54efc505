import type { ClientProxy } from '@nestjs/microservices';
import { isRpcReply, newId, recordedSchemasReplySchema, type RecordedSchemasReply } from '@conduit/contracts';
import { rpcCall } from '@conduit/rpc-streams';
import type { RecordedSchemas } from './recorded-schemas.js';

/**
 * A create, update or validate waits this long for the scheduler, then goes on without schemas (with a warning):
 * checking SQL against earlier runs' columns is a help, never a reason for a save to fail or stall.
 */
export const RECORDED_SCHEMAS_DEADLINE_MS = 500;

/** Runs belong to the scheduler: ask it what recent runs of the pipeline recorded for its sources. */
export class SchedulerRecordedSchemas implements RecordedSchemas {
  constructor(
    private readonly scheduler: ClientProxy,
    private readonly deadlineMs = RECORDED_SCHEMAS_DEADLINE_MS,
  ) {}

  async latest(tenantId: string, pipelineId: string): Promise<RecordedSchemasReply | null> {
    const ctx = { tenant_id: tenantId, scopes: ['read'], request_id: newId('request') };
    let reply: unknown;
    try {
      reply = await rpcCall(this.scheduler, 'scheduler.runs.schemas', { ctx, data: { pipeline_id: pipelineId } }, { timeoutMs: this.deadlineMs });
    } catch {
      return null;
    }
    if (!isRpcReply(reply) || !reply.ok) return null;
    const parsed = recordedSchemasReplySchema.safeParse(reply.data);
    return parsed.success ? parsed.data : null;
  }
}
