/**
 * The pipeline snapshots this scheduler took from the catalog, each under the tenant's catalog generation read before
 * it was asked for (contracts `CATALOG_GENERATION_KEY_PREFIX`), so that Trigger Run asks the catalog again only when
 * something of the tenant's changed (issue 18: the snapshot's RPC was a third of a trigger's hops).
 *
 * Current while the generation reads the same: the catalog bumps it after every committed change of the tenant's
 * pipelines or connectors and before answering it, so a trigger sent after a change's answer reads another generation
 * and misses. A held snapshot is also used for `ttlMs` at most (30 s), the bound on staleness should a bump be lost
 * (Redis refused it). Only valid snapshots are held: an invalid or missing pipeline is the rare path and always asked.
 * Held snapshots are frozen, since every trigger of the pipeline shares one; bounded in entries and in characters of
 * DAG.
 */
import type { PipelineSnapshot } from '@conduit/contracts';
import { LruCopies, copyKeyOf } from '@conduit/service-kit';

export interface HeldSnapshotsOptions {
  /** Entries held at most; the least recently used goes first. Default 1,000. */
  maxEntries?: number;
  /** Characters of DAG JSON held at most, all entries together. Default 32 Mi (a DAG is at most 1 MiB). */
  maxBytes?: number;
  /** How long an entry is used. Default 30 s. */
  ttlMs?: number;
  now?: () => number;
}

interface Held {
  snapshot: PipelineSnapshot;
  generation: string;
}

export class HeldSnapshots {
  private readonly copies: LruCopies<Held>;

  constructor(opts: HeldSnapshotsOptions = {}) {
    this.copies = new LruCopies({
      maxEntries: opts.maxEntries ?? 1000,
      maxBytes: opts.maxBytes ?? 32 * 1024 * 1024,
      ttlMs: opts.ttlMs ?? 30_000,
      ...(opts.now && { now: opts.now }),
    });
  }

  get size(): number {
    return this.copies.size;
  }

  /** The tenant's pipeline as held under `generation`, unless the generation moved or the entry expired. */
  get(tenantId: string, pipelineId: string, generation: string): PipelineSnapshot | undefined {
    const key = copyKeyOf(tenantId, pipelineId);
    const held = this.copies.get(key);
    if (held?.generation === generation) return held.snapshot;
    if (held) this.copies.delete(key);
    return undefined;
  }

  /** Holds what the catalog answered after `generation` was read (never one read after the answer). */
  store(tenantId: string, pipelineId: string, generation: string, snapshot: PipelineSnapshot): void {
    if (!snapshot.valid) return;
    const bytes = JSON.stringify(snapshot.dag).length;
    this.copies.set(copyKeyOf(tenantId, pipelineId), { snapshot: deepFreeze(snapshot), generation }, bytes);
  }
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}
