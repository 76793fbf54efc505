/**
 * Which tenants have (or once had) a webhook, kept in Redis by the webhook dispatcher, so that a service publishing
 * events leaves out of `events.webhooks` those of every other tenant: most tenants have no webhook, and each event
 * batch the dispatcher takes only to drop costs a queue hop and a lookup (issue 18).
 *
 * It must never leave out an event a webhook should get, so it errs toward sending:
 * - the set is one Redis set holding the tenants and a COMPLETE member, which the dispatcher adds only once every
 *   tenant of its webhooks table is in (`complete`: at boot, after each reconnect, every sweep). A set without it
 *   answers null: publish to everyone;
 * - `complete` is fenced: a token goes into the set before the table is read, and the mark is added, in one script,
 *   only while that token is still there. A set lost after the read (a Redis restart, its expiry) loses the token, so
 *   no read older than the loss, and no part of a write that ioredis sent again to a new server, is ever marked;
 * - the set expires `ttlMs` after its last complete write: when no dispatcher of this version is left to write it (a
 *   rollback), publishers send everything again. It is written every 5 s;
 * - a webhook's tenant is added before its row is inserted (a failure refuses the create) and again after its
 *   commit, so a tenant is a member from before its first webhook can match an event until the set is lost;
 * - members are never removed: a tenant whose webhooks are all gone keeps its events going to the dispatcher, which
 *   drops them after its own lookup (subscribed-tenants.ts). Removing safely would race the adds above;
 * - a reader distrusts the set for `distrustMs` after its connection opened or dropped: a failover's replica may hold
 *   an older set with its token or mark (replication lags), which the fence cannot tell; such a set lapses within
 *   `ttlMs` unless a write whose read came after the failover renews it, so `distrustMs` must outlast `ttlMs`;
 * - an error or a slow answer (`timeoutMs`) answers null.
 * What it cannot see: a proxy that keeps client connections across a Redis failover hides the drop (as for
 * TenantGenerations), and a dispatcher of the version before writes webhooks without adding their tenants
 * (docs/operations.md: upgrade the dispatcher before the scheduler).
 */
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { dependencyUnavailable } from '../errors/dependency-errors.js';

/** The set's key, after the deployment's REDIS_PREFIX. */
export const WEBHOOK_TENANTS_KEY = 'webhooks:tenants';
/** Not a tenant id (ids never hold a space): present once the dispatcher wrote its whole table into the set. */
const COMPLETE = '* complete';
/** A complete write's fence; no tenant id either. */
const TOKEN_PREFIX = '* token ';
/** Members per SADD when the whole table is written. */
const CHUNK = 1_000;

// KEYS[1] the set; ARGV[1] the write's token, ARGV[2] the set's life in ms. Marks the set complete only while the
// token, added before the table was read, is still in it; the token goes either way.
const MARK_COMPLETE = `if redis.call('SREM', KEYS[1], ARGV[1]) == 0 then return 0 end
redis.call('SADD', KEYS[1], '${COMPLETE}')
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1`;

export interface WebhookTenantsOptions {
  /** How long a reader answers null after its connection opened or closed. Default: 30 s. */
  distrustMs?: number;
  /** The longest a reader waits for Redis before it answers null. Default: 1 s. */
  timeoutMs?: number;
  /** How long the set lives after its last complete write; a reader's distrustMs must outlast it. Default: 15 s. */
  ttlMs?: number;
  /** A monotonic clock in ms. Default: performance.now. */
  now?: () => number;
}

export class WebhookTenants {
  private readonly key: string;
  private readonly distrustMs: number;
  private readonly timeoutMs: number;
  private readonly ttlMs: number;
  private readonly now: () => number;
  private distrustedUntil: number;

  constructor(
    private readonly redis: Redis,
    redisPrefix: string,
    opts: WebhookTenantsOptions = {},
  ) {
    this.key = `${redisPrefix}${WEBHOOK_TENANTS_KEY}`;
    this.distrustMs = opts.distrustMs ?? 30_000;
    this.timeoutMs = opts.timeoutMs ?? 1_000;
    this.ttlMs = opts.ttlMs ?? 15_000;
    this.now = opts.now ?? performance.now.bind(performance);
    this.distrustedUntil = this.now() + this.distrustMs;
    redis.on('close', () => (this.distrustedUntil = this.now() + this.distrustMs));
  }

  /** Calls `listener` whenever the connection is ready again (the dispatcher writes its whole table then). */
  onReady(listener: () => void): void {
    this.redis.on('ready', listener);
  }

  /** The dispatcher, before a webhook of the tenant is inserted and after: a 503 when Redis does not take it. */
  async admit(tenantId: string): Promise<void> {
    try {
      await this.redis.sadd(this.key, tenantId);
    } catch {
      throw dependencyUnavailable('redis', 'the webhook could not be registered for its events');
    }
  }

  /**
   * The dispatcher: `readTenants` (every tenant of its webhooks table) written into the set, then the COMPLETE mark,
   * fenced by a token added before the read. Answers whether the set was marked (false: it was lost meanwhile; the
   * next write marks it).
   */
  async complete(readTenants: () => Promise<readonly string[]>): Promise<boolean> {
    const token = `${TOKEN_PREFIX}${randomUUID()}`;
    await this.redis.sadd(this.key, token);
    try {
      const tenantIds = await readTenants();
      for (let i = 0; i < tenantIds.length; i += CHUNK)
        await this.redis.sadd(this.key, ...tenantIds.slice(i, i + CHUNK));
      // The script removes the token either way.
      return (await this.redis.eval(MARK_COMPLETE, 1, this.key, token, this.ttlMs)) === 1;
    } catch (err) {
      await this.redis.srem(this.key, token).catch(() => undefined);
      throw err;
    }
  }

  /**
   * A publisher: those of `tenantIds` that may have a webhook, or null when that cannot be told (publish every
   * event). Never throws.
   */
  async subscribedAmong(tenantIds: readonly string[]): Promise<ReadonlySet<string> | null> {
    if (tenantIds.length === 0 || this.now() < this.distrustedUntil) return null;
    const ids = [...new Set(tenantIds)];
    let timer: NodeJS.Timeout | undefined;
    try {
      const answer = await Promise.race([
        this.redis.smismember(this.key, COMPLETE, ...ids),
        new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), this.timeoutMs))),
      ]);
      // Asked before a drop and answered after it: which server answered is not known.
      if (!answer || answer[0] !== 1 || this.now() < this.distrustedUntil) return null;
      return new Set(ids.filter((_, i) => answer[i + 1] === 1));
    } catch {
      return null;
    } finally {
      clearTimeout(timer);
    }
  }
}
