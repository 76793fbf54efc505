/**
 * A counter per tenant in Redis that the owner of some data bumps after every committed change of it, so that another
 * service holding copies can tell with one GET whether anything of the tenant's changed since it took a copy: a copy
 * taken after reading generation G is current while the counter still reads G.
 *
 * Why a counter read at every use rather than announcements alone: an announcement and the request that follows the
 * change arrive on different connections, so a copy could be used in the same turn as its announcement arrives. The
 * owner bumps before it answers the change, so a request sent after that answer reads the new generation.
 *
 * A counter never comes back to an earlier value, even when Redis loses the key (a restart without persistence, the
 * key's expiry): a missing key is created at a random base, never at 0, so a copy taken under the old key's value
 * does not match the new one. Keys expire `ttlSeconds` after their last bump or creation: an idle tenant's copies then
 * miss once.
 */
import { randomInt } from 'node:crypto';
import type { Redis } from 'ioredis';

/** 30 days. */
const DEFAULT_TTL_S = 30 * 24 * 3600;

export class TenantGenerations {
  constructor(
    private readonly redis: Redis,
    /** The key of a tenant is `${keyPrefix}${tenantId}`: the deployment's Redis prefix and the data's name. */
    private readonly keyPrefix: string,
    private readonly ttlSeconds = DEFAULT_TTL_S,
  ) {}

  /** After a change of the tenant's data committed, before it is answered. Throws when Redis does not take it. */
  async bump(tenantId: string): Promise<void> {
    const key = this.keyOf(tenantId);
    const results = await this.redis
      .multi()
      .set(key, randomBase(), 'EX', this.ttlSeconds, 'NX')
      .incr(key)
      .expire(key, this.ttlSeconds)
      .exec();
    const failed = results?.find(([err]) => err !== null);
    if (!results || failed) throw failed?.[0] ?? new Error('the generation bump was discarded');
  }

  /** The tenant's generation now, an opaque text that changes with every bump. Throws when Redis does not answer. */
  async read(tenantId: string): Promise<string> {
    const base = randomBase();
    // One command: the value held, or none, in which case the base just set is the value.
    const held = await this.redis.set(this.keyOf(tenantId), base, 'EX', this.ttlSeconds, 'NX', 'GET');
    return held ?? base;
  }

  private keyOf(tenantId: string): string {
    return `${this.keyPrefix}${tenantId}`;
  }
}

/** A start far from any value a counter reached before: 47 random bits, well inside a double's exact integers. */
function randomBase(): string {
  return String(2 ** 40 + randomInt(2 ** 47));
}
