/**
 * Live log streams open at once, per tenant, on this gateway. A stream polls monitoring for as long as its run lasts
 * (a node may run for a day) and the rate limit counts only the request that opened it: without a bound, one tenant's
 * streams (a tenant admin may make any number of keys) slowed every other tenant's log reads a hundredfold (an
 * attacker's probe: ~2,000 streams). One more stream than the bound is a 429.
 */
export class StreamSlots {
  private readonly open = new Map<string, number>();

  constructor(private readonly perTenant: number) {}

  /** A slot of `tenantId`'s, and the function that gives it back (once); undefined when all are taken. */
  take(tenantId: string): (() => void) | undefined {
    const held = this.open.get(tenantId) ?? 0;
    if (held >= this.perTenant) return undefined;
    this.open.set(tenantId, held + 1);
    let given = false;
    return () => {
      if (given) return;
      given = true;
      const left = (this.open.get(tenantId) ?? 1) - 1;
      if (left > 0) this.open.set(tenantId, left);
      else this.open.delete(tenantId);
    };
  }
}
