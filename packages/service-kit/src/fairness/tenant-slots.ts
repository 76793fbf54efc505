/**
 * At most `perTenant` of a costly kind of work under way for one tenant in this process, so that one tenant cannot
 * hold every slot of a pool shared by all (the RPC concurrency, a queue worker's) with work that waits on the network
 * for seconds. Per process: with replicas, a tenant may hold that many on each.
 */
export class TenantSlots {
  private readonly held = new Map<string, number>();

  constructor(readonly perTenant: number) {}

  /**
   * Takes a slot of `tenantId`'s: its release, or undefined when all of them are taken. `pastShare`: counted, but
   * taken even beyond `perTenant` (a pool that lends a tenant its idle room decides when, and gives it back first).
   */
  take(tenantId: string, pastShare = false): (() => void) | undefined {
    const now = this.held.get(tenantId) ?? 0;
    if (now >= this.perTenant && !pastShare) return undefined;
    this.held.set(tenantId, now + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.held.get(tenantId) ?? 1) - 1;
      if (left <= 0) this.held.delete(tenantId);
      else this.held.set(tenantId, left);
    };
  }

  /** The slots `tenantId` holds now. */
  inUse(tenantId: string): number {
    return this.held.get(tenantId) ?? 0;
  }
}
