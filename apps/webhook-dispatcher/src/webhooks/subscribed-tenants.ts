import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { performance } from 'node:perf_hooks';
import { preparedQuery } from '@conduit/service-kit';

/**
 * The longest a loaded set is used even when its version still matches: a last bound on what the version could miss
 * (the database restored to an earlier point while replicas run, which can bring a version number back).
 */
const MAX_AGE_MS = 10_000;

interface Loaded {
  version: string;
  tenants: ReadonlySet<string>;
  /** performance.now(): a monotonic clock, so that a wall-clock step never stretches the set's use. */
  loadedAt: number;
}

/**
 * Which tenants have an active webhook, so that events of the others (most tenants, most events) are planned without
 * a lookup. The set is loaded together with webhook_subscriptions_version, which a trigger on `webhooks` bumps in the
 * transaction of every change to it (migration 1764120000000), whichever replica or version made the change. The
 * planner reads the version (one primary-key read) after it received its batch's events and uses its set only when it
 * was loaded under that same version:
 * - a change answered before an event was accepted committed before the planner's read, so that read answers its
 *   version or a later one;
 * - the set was read in the same snapshot as its version, and versions commit in order (the bump locks the row until
 *   commit), so a set loaded under a version includes every change up to it.
 */
@Injectable()
export class SubscribedTenants {
  private loaded: Loaded | null = null;

  constructor(private readonly ds: DataSource) {}

  /**
   * The tenants with an active webhook, valid for every event received before this call; null without a version row
   * (look every tenant up).
   */
  async current(): Promise<ReadonlySet<string> | null> {
    const loaded = this.loaded;
    if (loaded && performance.now() - loaded.loadedAt < MAX_AGE_MS) {
      const [row] = await preparedQuery<{ version: string }>(
        this.ds.manager,
        `SELECT version::text AS version FROM webhook_subscriptions_version WHERE id`,
        [],
      );
      if (row?.version === loaded.version) return loaded.tenants;
    }
    return this.load();
  }

  /** The version and the set in one statement, so one snapshot: the set is at least as new as its version. */
  private async load(): Promise<ReadonlySet<string> | null> {
    this.loaded = null;
    const loadedAt = performance.now();
    const [row] = await this.ds.query<{ version: string | null; tenants: string[] }[]>(
      `SELECT (SELECT version::text FROM webhook_subscriptions_version WHERE id) AS version,
              ARRAY(SELECT DISTINCT tenant_id FROM webhooks WHERE status = 'active') AS tenants`,
    );
    if (!row?.version) return null;
    const tenants = new Set(row.tenants);
    this.loaded = { version: row.version, tenants, loadedAt };
    return tenants;
  }
}
