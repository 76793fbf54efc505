/**
 * At most `perTenant` of a costly kind of work under way for one tenant in this process, so that one tenant cannot
 * hold every slot of a pool shared by all (the RPC concurrency, a queue worker's) with work that waits on the network
 * for seconds. Per process: with replicas, a tenant may hold that many on each.
 */
export class TenantSlots {
  private readonly byTenant = new Map<string, number>();
  private heldByAll = 0;

  constructor(readonly perTenant: number) {}

  /**
   * Takes a slot of `tenantId`'s: its release, or undefined when all of them are taken. `pastShare`: counted, but
   * taken even beyond `perTenant` (a pool that lends a tenant its idle room decides when, and gives it back first).
   */
  take(tenantId: string, pastShare = false): (() => void) | undefined {
    const now = this.byTenant.get(tenantId) ?? 0;
    if (now >= this.perTenant && !pastShare) return undefined;
    this.byTenant.set(tenantId, now + 1);
    this.heldByAll += 1;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.heldByAll -= 1;
      const left = (this.byTenant.get(tenantId) ?? 1) - 1;
      if (left <= 0) this.byTenant.delete(tenantId);
      else this.byTenant.set(tenantId, left);
    };
  }

  /**
   * Whether a pool of `capacity` slots, all of them taken through here, has more than one tenant's share free: then a
   * tenant past its share may borrow one, and the last share stays for another tenant's work, which goes at once.
   */
  lends(capacity: number): boolean {
    return this.heldByAll < capacity - this.perTenant;
  }

  /** A slot within the tenant's share, else one borrowed while the pool of `capacity` lends (see lends). */
  takeOrBorrow(tenantId: string, capacity: number): (() => void) | undefined {
    return this.take(tenantId) ?? (this.lends(capacity) ? this.take(tenantId, true) : undefined);
  }

  /** The slots `tenantId` holds now. */
  inUse(tenantId: string): number {
    return this.byTenant.get(tenantId) ?? 0;
  }
}
