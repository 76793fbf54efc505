import { AppError, isRpcReply, onBehalfOf, type PipelineSnapshot, type RpcContext, type RpcReply } from '@conduit/contracts';
import { RpcTimeoutError, rpcCall, type RedisStreamsClient } from '@conduit/rpc-streams';

/** Reads a pipeline as a run takes it, from the catalog (`catalog.pipelines.snapshot`). */
export class PipelineSnapshots {
  constructor(private readonly client: RedisStreamsClient) {}

  /** The snapshot, or null when the tenant has no such pipeline; a silent catalog is a 503. */
  async get(ctx: RpcContext, pipelineId: string): Promise<PipelineSnapshot | null> {
    let reply: unknown;
    try {
      reply = await rpcCall<RpcReply<PipelineSnapshot>>(this.client, 'catalog.pipelines.snapshot', { ctx: onBehalfOf(ctx), data: { id: pipelineId } });
    } catch (err) {
      if (err instanceof RpcTimeoutError) throw new AppError('service_unavailable', 'the catalog did not answer in time');
      throw err;
    }
    if (!isRpcReply(reply)) throw new Error('catalog.pipelines.snapshot answered something that is not a reply envelope');
    if (reply.ok) return reply.data as PipelineSnapshot;
    if (reply.error.code === 'not_found') return null;
    throw new AppError(reply.error.code, `catalog: ${reply.error.detail}`);
  }
}
