/**
 * A counter per tenant in Redis that the owner of some data moves with every change of it, so that another service
 * holding copies can tell with one round trip whether anything of the tenant's changed since it took a copy: a copy
 * taken after reading generation G is current while the generation still reads G.
 *
 * A change runs inside `around`: a pending mark is set before it (so before its commit) and cleared together with the
 * bump after it, in one script. While a mark is set, `read` answers null and no copy is used or taken: so there is no
 * moment at which the new data is committed and visible while the generation still reads the old value, even when
 * the owner dies between its commit and its bump (the mark then expires after `pendingTtlSeconds`, the generation
 * having moved or not, and copies resume).
 *
 * Why a generation read at every use rather than announcements: an announcement and the request that follows the
 * change arrive on different connections, so a copy could be used in the same turn as its announcement arrives.
 *
 * What Redis itself may lose: a key lost (a restart without persistence, the key's expiry) comes back at a random
 * base, never at an earlier value. A Redis that comes back from a crash (AOF `everysec`) or a failover may also hold a
 * value from before the last bumps; the connection drops then, and every generation read on this side is tagged with
 * the number of times its connection closed, so no copy taken before the drop matches one read after it.
 */
import { randomInt } from 'node:crypto';
import type { Redis } from 'ioredis';
import { dependencyUnavailable } from '../errors/dependency-errors.js';

/** 30 days: an idle tenant's copies miss once after that. */
const DEFAULT_TTL_S = 30 * 24 * 3600;
/** Longer than any change of the owner's takes (its RPC deadline is seconds). */
const DEFAULT_PENDING_TTL_S = 60;

// KEYS: generation, pending mark. ARGV: a random base, the generation's TTL. Nil while a change is pending.
const READ = `
if tonumber(redis.call('GET', KEYS[2]) or '0') > 0 then return false end
local g = redis.call('GET', KEYS[1])
if g then return g end
redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[2])
return ARGV[1]`;

// The same KEYS and ARGV: the generation moved (from a random base if it was missing), one pending mark cleared.
const BUMP = `
local p = tonumber(redis.call('GET', KEYS[2]) or '0')
if p > 1 then redis.call('DECR', KEYS[2]) else redis.call('DEL', KEYS[2]) end
redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[2], 'NX')
redis.call('INCR', KEYS[1])
redis.call('EXPIRE', KEYS[1], ARGV[2])
return 1`;

type Script = (generationKey: string, pendingKey: string, base: string, ttl: number) => Promise<string | null>;

export interface TenantGenerationsOptions {
  ttlSeconds?: number;
  pendingTtlSeconds?: number;
  /** A bump that failed after the change: its mark stays until it expires (copies of the tenant are off meanwhile). */
  onBumpFailed?: (err: unknown, tenantId: string) => void;
}

export class TenantGenerations {
  private readonly readScript: Script;
  private readonly bumpScript: Script;
  private readonly ttlSeconds: number;
  private readonly pendingTtlSeconds: number;
  /** How often the connection closed: a generation read before a drop never equals one read after. */
  private drops = 0;

  constructor(
    private readonly redis: Redis,
    /** Keys are `${keyPrefix}g:${tenantId}` and `${keyPrefix}p:${tenantId}` (the pending mark). */
    private readonly keyPrefix: string,
    private readonly opts: TenantGenerationsOptions = {},
  ) {
    this.ttlSeconds = opts.ttlSeconds ?? DEFAULT_TTL_S;
    this.pendingTtlSeconds = opts.pendingTtlSeconds ?? DEFAULT_PENDING_TTL_S;
    redis.defineCommand('conduitGenerationRead', { numberOfKeys: 2, lua: READ });
    redis.defineCommand('conduitGenerationBump', { numberOfKeys: 2, lua: BUMP });
    const commands = redis as unknown as Record<'conduitGenerationRead' | 'conduitGenerationBump', Script>;
    this.readScript = commands.conduitGenerationRead.bind(redis);
    this.bumpScript = commands.conduitGenerationBump.bind(redis);
    redis.on('close', () => {
      this.drops += 1;
    });
  }

  /**
   * Runs `change`, a change of the tenant's data that commits inside it, between a pending mark and the bump. Throws
   * a 503 (and makes no change) when Redis does not take the mark; the bump follows whatever `change` does.
   */
  async around<T>(tenantId: string, change: () => Promise<T>): Promise<T> {
    const pending = this.pendingKeyOf(tenantId);
    try {
      await this.redis.multi().incr(pending).expire(pending, this.pendingTtlSeconds).exec();
    } catch {
      throw dependencyUnavailable('redis', 'the change could not be announced to the copies of other services');
    }
    try {
      return await change();
    } finally {
      await this.bumpScript(this.generationKeyOf(tenantId), pending, randomBase(), this.ttlSeconds).catch(
        (err: unknown) => this.opts.onBumpFailed?.(err, tenantId),
      );
    }
  }

  /**
   * The tenant's generation now, an opaque text that changes with every change, or null while a change is pending
   * (then no copy may be used or taken). Throws when Redis does not answer.
   */
  async read(tenantId: string): Promise<string | null> {
    const drops = this.drops;
    const value = await this.readScript(
      this.generationKeyOf(tenantId),
      this.pendingKeyOf(tenantId),
      randomBase(),
      this.ttlSeconds,
    );
    // Sent before a drop and answered after it (ioredis sends it again): which server answered is unknown.
    if (value === null || this.drops !== drops) return null;
    return `${drops}/${value}`;
  }

  private generationKeyOf(tenantId: string): string {
    return `${this.keyPrefix}g:${tenantId}`;
  }

  private pendingKeyOf(tenantId: string): string {
    return `${this.keyPrefix}p:${tenantId}`;
  }
}

/** A start far from any value a counter reached before: 47 random bits, well inside a double's exact integers. */
function randomBase(): string {
  return String(2 ** 40 + randomInt(2 ** 47));
}
