import { Inject, Injectable, type OnModuleDestroy } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { Redis } from 'ioredis';
import { randomUUID } from 'node:crypto';
import { reconnectDelay } from '@conduit/service-kit';
import { DISPATCHER_SETTINGS } from '../common/tokens.js';
import type { DispatcherSettings } from '../dispatcher-settings.js';

/** A Redis call of this class gives up after this long: the planner then looks every tenant up, a writer answers 503. */
const COMMAND_TIMEOUT_MS = 1000;
/**
 * The longest a loaded set is used, whatever the token says: it bounds how long a change whose token could not be
 * written (Redis failing just after the commit; that change was answered 503) goes unseen.
 */
const MAX_AGE_MS = 10_000;

interface Loaded {
  token: string;
  tenants: ReadonlySet<string>;
  loadedAt: number;
}

/**
 * Which tenants have an active webhook, so that events of the others (most tenants, most events) are planned without
 * a query. The set is loaded from the database under a token kept in Redis, which every change of a webhook replaces
 * after its commit and before its answer. The planner reads the token after it received its batch's events and uses
 * its set only when the token is the one it loaded under:
 * - a change answered before an event was accepted replaced the token before that event was even queued, so the
 *   planner's read sees that token (or a later one);
 * - a set loaded under that token was read from the database after the token was written, so after the change's
 *   commit: it includes the change.
 * Tokens are random, so a token Redis lost and had written again never matches an old one. When Redis does not answer,
 * the planner looks every tenant up as before.
 */
@Injectable()
export class SubscribedTenants implements OnModuleDestroy {
  private readonly redis: Redis;
  private readonly key: string;
  private loaded: Loaded | null = null;

  constructor(
    private readonly ds: DataSource,
    @Inject(DISPATCHER_SETTINGS) settings: DispatcherSettings,
  ) {
    this.key = `${settings.redisPrefix}webhooks:subscriptions-token`;
    this.redis = new Redis(settings.redisUrl, {
      lazyConnect: true,
      maxRetriesPerRequest: 1,
      commandTimeout: COMMAND_TIMEOUT_MS,
      retryStrategy: reconnectDelay,
    });
    // Failures surface on the calls themselves; the connection's own errors would only repeat them.
    this.redis.on('error', () => undefined);
  }

  async onModuleDestroy(): Promise<void> {
    await this.redis.quit().catch(() => this.redis.disconnect());
  }

  /** After a webhook change commits and before it is answered: sets loaded before the commit stop being used. */
  async changed(): Promise<void> {
    await this.redis.set(this.key, randomUUID());
  }

  /**
   * The tenants with an active webhook, valid for every event received before this call; null when Redis does not
   * answer (look every tenant up).
   */
  async current(): Promise<ReadonlySet<string> | null> {
    let token: string;
    try {
      token = await this.token();
    } catch {
      return null;
    }
    const loaded = this.loaded;
    if (loaded && loaded.token === token && Date.now() - loaded.loadedAt < MAX_AGE_MS) return loaded.tenants;
    const loadedAt = Date.now();
    const rows = await this.ds.query<{ tenant_id: string }[]>(
      `SELECT DISTINCT tenant_id FROM webhooks WHERE status = 'active'`,
    );
    const tenants = new Set(rows.map((r) => r.tenant_id));
    this.loaded = { token, tenants, loadedAt };
    return tenants;
  }

  /** The token now; the first reader of a Redis without one writes one (a writer's own wins if it came first). */
  private async token(): Promise<string> {
    const token = await this.redis.get(this.key);
    if (token !== null) return token;
    const fresh = randomUUID();
    if ((await this.redis.set(this.key, fresh, 'NX')) === 'OK') return fresh;
    const written = await this.redis.get(this.key);
    if (written === null) throw new Error('the subscriptions token vanished');
    return written;
  }
}
