/**
 * Which tenants have (or once had) a webhook, kept in Redis by the webhook dispatcher, so that a service publishing
 * events leaves out of `events.webhooks` those of every other tenant: most tenants have no webhook, and each event
 * batch the dispatcher takes only to drop costs a queue hop and a lookup (issue 18).
 *
 * It must never leave out an event a webhook should get, so it errs toward sending:
 * - the set is one Redis set holding the tenants and a COMPLETE member, which the dispatcher adds only together with
 *   every tenant of its webhooks table (`complete`, at boot, after each reconnect and every `refreshMs`). A set
 *   without it (Redis restarted and lost it, or nothing wrote it yet) answers null: publish to everyone;
 * - a webhook's tenant is added before its row is inserted (a failure refuses the create) and again after its
 *   commit, so a tenant is a member from before its first webhook can match an event until the set is lost;
 * - members are never removed: a tenant whose webhooks are all gone keeps its events going to the dispatcher, which
 *   drops them after its own lookup (subscribed-tenants.ts). Removing safely would race the adds above;
 * - a reader distrusts the set for `distrustMs` after its connection opened or dropped: a Redis that came back from a
 *   failover may hold an older set, which the dispatcher's reconnect and refresh put right within that time;
 * - an error or a slow answer (`timeoutMs`) answers null.
 */
import type { Redis } from 'ioredis';
import { dependencyUnavailable } from '../errors/dependency-errors.js';

/** The set's key, after the deployment's REDIS_PREFIX. */
export const WEBHOOK_TENANTS_KEY = 'webhooks:tenants';
/** Not a tenant id (ids never hold a space): present once the dispatcher wrote its whole table into the set. */
const COMPLETE = '* complete';
/** Members per SADD when the whole table is written. */
const CHUNK = 1_000;

export interface WebhookTenantsOptions {
  /** How long a reader answers null after its connection opened or closed. Default: 30 s. */
  distrustMs?: number;
  /** The longest a reader waits for Redis before it answers null. Default: 1 s. */
  timeoutMs?: number;
  /** A monotonic clock in ms. Default: performance.now. */
  now?: () => number;
}

export class WebhookTenants {
  private readonly key: string;
  private readonly distrustMs: number;
  private readonly timeoutMs: number;
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

  /** The dispatcher: every tenant of its webhooks table, read before this call, then the COMPLETE mark. */
  async complete(tenantIds: readonly string[]): Promise<void> {
    for (let i = 0; i < tenantIds.length; i += CHUNK) await this.redis.sadd(this.key, ...tenantIds.slice(i, i + CHUNK));
    await this.redis.sadd(this.key, COMPLETE);
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
