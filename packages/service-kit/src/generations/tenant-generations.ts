/**
 * A counter per tenant in Redis that the owner of some data moves with every change of it, so that another service
 * holding copies can tell with one round trip whether anything of the tenant's changed since it took a copy: a copy
 * taken after reading generation G is current while the generation still reads G.
 *
 * A change runs inside `around`: a pending mark of its own is set before it (so before its commit), which also moves
 * the generation, is renewed while the change runs, and is cleared with a second move after it, in one script. While
 * any mark is set, `read` answers null and no copy is used or taken: so there is no moment at which the new data is
 * committed while a copy taken before it could still be used, even when the owner dies between its commit and its
 * bump (the mark then lapses after `pendingTtlSeconds`, and the generation has moved already).
 *
 * Why a generation read at every use rather than announcements: an announcement and the request that follows the
 * change arrive on different connections, so a copy could be used in the same turn as its announcement arrives.
 *
 * What Redis itself may lose: a key lost (a restart without persistence, the key's expiry) comes back at a random
 * base, never at an earlier value. A Redis that comes back from a crash (AOF `everysec`) or a failover may also hold a
 * value from before the last bumps, or have lost a mark; the connection drops then, every generation read on this side
 * is tagged with the number of times its connection closed, so no copy taken before the drop matches one read after
 * it, and none is answered for a mark's life after the drop. (A proxy that keeps client connections across a failover
 * hides the drop: then a copy is bounded by its holder's own TTL only.)
 */
import { randomInt, randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { dependencyUnavailable } from '../errors/dependency-errors.js';

/** 30 days: an idle tenant's copies miss once after that. */
const DEFAULT_TTL_S = 30 * 24 * 3600;
/** How long a mark lives unless its change renews it (every third of it while the change runs). */
const DEFAULT_PENDING_TTL_S = 60;

// Every script takes KEYS: the generation, the pending marks (a sorted set: one member per change, scored by the
// server's clock in ms at which it lapses), and ARGV[1] a random base, ARGV[2] the generation's TTL in s.
const NOW_MS = `local t = redis.call('TIME') local now = t[1] * 1000 + math.floor(t[2] / 1000)`;
const MOVE = `redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[2], 'NX') redis.call('INCR', KEYS[1]) redis.call('EXPIRE', KEYS[1], ARGV[2])`;

// Nil while a change is pending; else the generation, made at the random base if it was missing.
const READ = `${NOW_MS}
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
if redis.call('ZCARD', KEYS[2]) > 0 then return false end
local g = redis.call('GET', KEYS[1])
if g then return g end
redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[2])
return ARGV[1]`;

// ARGV[3] the change's id, ARGV[4] the mark's life in ms. Marks the change (again, when renewing) and moves the
// generation, so no copy taken before the mark matches after it, even should the bump never come.
const MARK = `${NOW_MS}
redis.call('ZADD', KEYS[2], now + tonumber(ARGV[4]), ARGV[3])
redis.call('PEXPIRE', KEYS[2], ARGV[4])
${MOVE}
return 1`;

// ARGV[3] the change's id. Moves the generation and clears this change's mark only (idempotent: sent again after a
// reconnect, it clears nothing of another change's).
const BUMP = `redis.call('ZREM', KEYS[2], ARGV[3])
${MOVE}
return 1`;

type Script = (
  generationKey: string,
  pendingKey: string,
  base: string,
  ttl: number,
  ...args: string[]
) => Promise<string | null>;

export interface TenantGenerationsOptions {
  ttlSeconds?: number;
  pendingTtlSeconds?: number;
  /** A bump that failed after the change: its mark stays until it lapses (copies of the tenant are off meanwhile). */
  onBumpFailed?: (err: unknown, tenantId: string) => void;
  /** A monotonic clock in ms. Default: performance.now. */
  now?: () => number;
}

export class TenantGenerations {
  private readonly scripts: Record<'read' | 'mark' | 'bump', Script>;
  private readonly ttlSeconds: number;
  private readonly pendingTtlMs: number;
  private readonly now: () => number;
  /** How often the connection closed: a generation read before a drop never equals one read after. */
  private drops = 0;
  /** When it last closed: for a mark's life after, no generation is answered (a restart may have lost marks). */
  private droppedAt = -Infinity;

  constructor(
    private readonly redis: Redis,
    /** Keys are `${keyPrefix}g:${tenantId}` and `${keyPrefix}p:${tenantId}` (the pending marks). */
    private readonly keyPrefix: string,
    private readonly opts: TenantGenerationsOptions = {},
  ) {
    this.ttlSeconds = opts.ttlSeconds ?? DEFAULT_TTL_S;
    this.pendingTtlMs = (opts.pendingTtlSeconds ?? DEFAULT_PENDING_TTL_S) * 1000;
    this.now = opts.now ?? performance.now.bind(performance);
    const scripts = { read: READ, mark: MARK, bump: BUMP };
    const bound: Partial<Record<'read' | 'mark' | 'bump', Script>> = {};
    for (const [name, lua] of Object.entries(scripts) as ['read' | 'mark' | 'bump', string][]) {
      const command = `conduitGeneration_${name}`;
      redis.defineCommand(command, { numberOfKeys: 2, lua });
      bound[name] = (redis as unknown as Record<string, Script>)[command]!.bind(redis);
    }
    this.scripts = bound as Record<'read' | 'mark' | 'bump', Script>;
    redis.on('close', () => {
      this.drops += 1;
      this.droppedAt = this.now();
    });
  }

  /**
   * Runs `change`, a change of the tenant's data that commits inside it, between a pending mark (renewed while it
   * runs) and the bump. Throws a 503 (and makes no change) when Redis does not take the mark; the bump follows
   * whatever `change` does.
   */
  async around<T>(tenantId: string, change: () => Promise<T>): Promise<T> {
    const keys = [this.generationKeyOf(tenantId), this.pendingKeyOf(tenantId)] as const;
    const id = randomUUID();
    const mark = () => this.scripts.mark(...keys, randomBase(), this.ttlSeconds, id, String(this.pendingTtlMs));
    try {
      await mark();
    } catch {
      throw dependencyUnavailable('redis', 'the change could not be announced to the copies of other services');
    }
    // A change may take longer than a mark lives (a lock waited for): renewed, so it never outlives its mark.
    const renewal = setInterval(() => void mark().catch(() => undefined), this.pendingTtlMs / 3);
    try {
      return await change();
    } finally {
      clearInterval(renewal);
      await this.scripts
        .bump(...keys, randomBase(), this.ttlSeconds, id)
        .catch((err: unknown) => this.opts.onBumpFailed?.(err, tenantId));
    }
  }

  /**
   * The tenant's generation now, an opaque text that changes with every change, or null while a change is pending
   * (then no copy may be used or taken), and for a mark's life after the connection dropped. Throws when Redis does
   * not answer.
   */
  async read(tenantId: string): Promise<string | null> {
    const drops = this.drops;
    const value = await this.scripts.read(
      this.generationKeyOf(tenantId),
      this.pendingKeyOf(tenantId),
      randomBase(),
      this.ttlSeconds,
    );
    // Sent before a drop and answered after it (ioredis sends it again): which server answered is unknown. And a
    // Redis that restarted may have lost a mark whose change is still to commit: none is trusted until it would lapse.
    if (value === null || this.drops !== drops || this.now() - this.droppedAt < this.pendingTtlMs) return null;
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
