/**
 * The pipeline snapshots this scheduler took from the catalog, each under the tenant's catalog generation read before
 * it was asked for (contracts `CATALOG_GENERATION_KEY_PREFIX`, service-kit `TenantGenerations`), so that Trigger Run
 * asks the catalog again only when something of the tenant's changed (issue 18: the snapshot's RPC was a third of a
 * trigger's hops). Current while the generation reads the same: the catalog marks a change pending before its commit
 * and bumps the generation after it, and no generation is read while a mark is set (docs/reliability.md).
 *
 * Only valid snapshots are held: an invalid or missing pipeline is the rare path and always asked. Each is held as
 * its JSON text and parsed at every use, so what a tenant's DAGs cost here is what their text weighs (a parsed DAG of
 * empty objects weighs twenty times its text), and no trigger can change what the next one takes. Bounded in entries,
 * in bytes (two a character, as V8 may store them) and in age: `ttlMs` also bounds what a bug elsewhere could cost.
 */
import type { PipelineSnapshot } from '@conduit/contracts';
import { LruCopies, copyKeyOf } from '@conduit/service-kit';

export interface HeldSnapshotsOptions {
  /** Entries held at most; the least recently used goes first. Default 1,000. */
  maxEntries?: number;
  /** Bytes of snapshot text held at most, all entries together. Default 32 MiB (a DAG is at most 1 MiB). */
  maxBytes?: number;
  /** How long an entry is used (the scheduler's `snapshotHoldMs`). */
  ttlMs: number;
  now?: () => number;
}

interface Held {
  text: string;
  generation: string;
}

export class HeldSnapshots {
  private readonly copies: LruCopies<Held>;

  constructor(opts: HeldSnapshotsOptions) {
    this.copies = new LruCopies({
      maxEntries: opts.maxEntries ?? 1000,
      maxBytes: opts.maxBytes ?? 32 * 1024 * 1024,
      ttlMs: opts.ttlMs,
      ...(opts.now && { now: opts.now }),
    });
  }

  get size(): number {
    return this.copies.size;
  }

  /** A fresh copy of the tenant's pipeline as held under `generation`, unless the generation moved or it expired. */
  get(tenantId: string, pipelineId: string, generation: string): PipelineSnapshot | undefined {
    const key = copyKeyOf(tenantId, pipelineId);
    const held = this.copies.get(key);
    if (held?.generation === generation) return JSON.parse(held.text) as PipelineSnapshot;
    if (held) this.copies.delete(key);
    return undefined;
  }

  /** Holds what the catalog answered after `generation` was read (never one read after the answer). */
  store(tenantId: string, pipelineId: string, generation: string, snapshot: PipelineSnapshot): void {
    if (!snapshot.valid) return;
    const text = JSON.stringify(snapshot);
    this.copies.set(copyKeyOf(tenantId, pipelineId), { text, generation }, text.length * 2);
  }
}
