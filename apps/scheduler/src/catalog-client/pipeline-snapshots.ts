import type { ClientProxy } from '@nestjs/microservices';
import { AppError, onBehalfOf, type PipelineSnapshot, type RpcContext } from '@conduit/contracts';
import { RpcClient, RpcRemoteError, RpcTimeoutError } from '@conduit/rpc-streams';
import type { Logger } from 'pino';
import type { TenantGenerations } from '@conduit/service-kit';
import type { HeldSnapshots } from './held-snapshots.js';

/** At most one warning a minute that generations cannot be read (every trigger then asks the catalog). */
const READ_FAILURE_WARNING_MS = 60_000;

/** What lets the scheduler use the snapshots it took: the tenants' generations and the copies held under them. */
export interface SnapshotHold {
  generations: TenantGenerations;
  held: HeldSnapshots;
  logger: Logger;
}

/**
 * Reads a pipeline as a run takes it, from the catalog (`catalog.pipelines.snapshot`), or from the snapshots held
 * while the tenant's catalog generation has not moved (held-snapshots.ts). Without a hold
 * (`SCHEDULER_SNAPSHOT_HOLD_MS=0`), every read asks the catalog.
 */
export class PipelineSnapshots {
  private readonly rpc: RpcClient;
  private lastReadWarning = -Infinity;

  constructor(
    client: ClientProxy,
    private readonly hold?: SnapshotHold,
  ) {
    this.rpc = new RpcClient(client);
  }

  /**
   * The tenant's catalog generation now, to start before the reads that precede a snapshot's (it is one Redis round
   * trip); undefined while a change of the tenant's is pending, without generations, or when Redis did not answer:
   * then nothing held is used or stored. Never rejects.
   */
  generationOf(tenantId: string): Promise<string | undefined> {
    const hold = this.hold;
    if (!hold) return Promise.resolve(undefined);
    return hold.generations.read(tenantId).then(
      (generation) => generation ?? undefined,
      (err: unknown) => {
        const now = performance.now();
        if (now - this.lastReadWarning >= READ_FAILURE_WARNING_MS) {
          this.lastReadWarning = now;
          hold.logger.warn({ err }, 'cannot read catalog generations; every trigger asks the catalog meanwhile');
        }
        return undefined;
      },
    );
  }

  /**
   * The snapshot, or null when the tenant has no such pipeline; a silent catalog is a 503. `generation` must have been
   * read before this call (by default, here): what the catalog answers is held under it.
   */
  async get(
    ctx: RpcContext,
    pipelineId: string,
    generation: Promise<string | undefined> = this.generationOf(ctx.tenant_id),
  ): Promise<PipelineSnapshot | null> {
    const read = await generation;
    const held = this.hold?.held;
    if (read === undefined || !held) return this.ask(ctx, pipelineId);
    const copy = held.get(ctx.tenant_id, pipelineId, read);
    if (copy) return copy;
    const snapshot = await this.ask(ctx, pipelineId);
    if (snapshot) held.store(ctx.tenant_id, pipelineId, read, snapshot);
    return snapshot;
  }

  private async ask(ctx: RpcContext, pipelineId: string): Promise<PipelineSnapshot | null> {
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
