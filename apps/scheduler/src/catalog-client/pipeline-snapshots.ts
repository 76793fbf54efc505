import type { ClientProxy } from '@nestjs/microservices';
import { AppError, onBehalfOf, type PipelineSnapshot, type RpcContext } from '@conduit/contracts';
import { RpcClient, RpcRemoteError, RpcTimeoutError } from '@conduit/rpc-streams';

/** Reads a pipeline as a run takes it, from the catalog (`catalog.pipelines.snapshot`). */
export class PipelineSnapshots {
  private readonly rpc: RpcClient;

  constructor(client: ClientProxy) {
    this.rpc = new RpcClient(client);
  }

  /** The snapshot, or null when the tenant has no such pipeline; a silent catalog is a 503. */
  async get(ctx: RpcContext, pipelineId: string): Promise<PipelineSnapshot | null> {
    try {
      return await this.rpc.call('catalog.pipelines.snapshot', { ctx: onBehalfOf(ctx), data: { id: pipelineId } });
    } catch (err) {
      if (err instanceof RpcTimeoutError)
        throw new AppError('service_unavailable', 'the catalog did not answer in time');
      if (!(err instanceof RpcRemoteError) || err.malformed) throw err;
      if (err.code === 'not_found') return null;
      throw new AppError(err.code, `catalog: ${err.message}`);
    }
  }
}
