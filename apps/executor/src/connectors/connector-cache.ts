/**
 * The connector configs this executor has resolved, as the catalog answered them (secrets still sealed: they are opened
 * per run, where used), so that a run whose connectors are held at the versions its command carries asks the catalog
 * for nothing.
 *
 * Staleness (issue 18): an entry is keyed by tenant and connector id and holds one version, the newest seen. A run
 * uses it when it is at least the version the scheduler read at the trigger, so a run triggered after a change never
 * gets the older config. A change after the trigger is announced by the catalog on `connectors:changed` after its
 * commit (connector-change-listener.ts): the entry is dropped, so a run claimed after an update or a delete asks the
 * catalog again, as every run did before the cache. An announcement can be missed only while the subscriber is
 * disconnected, and the listener clears the cache when it reconnects; every entry also expires after `ttlMs` (30 s),
 * the bound on staleness should an announcement still be lost. An answer fetched before a drop is not stored, since it
 * may predate the change.
 */
import type { ResolvedConnector } from '@conduit/contracts';

export interface ConnectorCacheOptions {
  /** Entries held at most; the least recently used goes first. Default 1,000. */
  maxEntries?: number;
  /** How long an entry is used before the catalog is asked again. Default 30 s. */
  ttlMs?: number;
  now?: () => number;
}

interface Entry {
  connector: ResolvedConnector;
  version: number;
  expiresAt: number;
}

export class ConnectorCache {
  /** In order of use, oldest first (a Map keeps insertion order; a hit moves its entry to the end). */
  private readonly entries = new Map<string, Entry>();
  private readonly maxEntries: number;
  private readonly ttlMs: number;
  private readonly now: () => number;
  private drops = 0;

  constructor(opts: ConnectorCacheOptions = {}) {
    this.maxEntries = opts.maxEntries ?? 1000;
    this.ttlMs = opts.ttlMs ?? 30_000;
    this.now = opts.now ?? Date.now;
  }

  get size(): number {
    return this.entries.size;
  }

  /** Taken before asking the catalog and given back to `store`: it tells whether a drop happened meanwhile. */
  get generation(): number {
    return this.drops;
  }

  /** The sealed config of the tenant's connector, when held at `version` or newer and not expired. */
  get(tenantId: string, connectorId: string, version: number): ResolvedConnector | undefined {
    const key = keyOf(tenantId, connectorId);
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt <= this.now()) {
      this.entries.delete(key);
      return undefined;
    }
    if (entry.version < version) return undefined;
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry.connector;
  }

  /**
   * Holds what the catalog answered for the tenant, unless something was dropped since `generation` was read. An
   * answer without a version (an older catalog) is not held.
   */
  store(tenantId: string, answered: readonly ResolvedConnector[], generation: number): void {
    if (generation !== this.drops) return;
    const expiresAt = this.now() + this.ttlMs;
    for (const connector of answered) {
      if (connector.version === undefined) continue;
      const key = keyOf(tenantId, connector.id);
      const held = this.entries.get(key);
      if (held && held.version > connector.version && held.expiresAt > this.now()) continue;
      this.entries.delete(key);
      this.entries.set(key, { connector, version: connector.version, expiresAt });
    }
    for (const key of this.entries.keys()) {
      if (this.entries.size <= this.maxEntries) break;
      this.entries.delete(key);
    }
  }

  /** A connector changed (`version`: its new one) or was deleted (`version`: null): older copies go. */
  drop(tenantId: string, connectorId: string, version: number | null): void {
    this.drops += 1;
    const key = keyOf(tenantId, connectorId);
    const held = this.entries.get(key);
    if (held && (version === null || held.version < version)) this.entries.delete(key);
  }

  /** Announcements may have been missed (the subscriber reconnected): nothing held can be trusted. */
  clear(): void {
    this.drops += 1;
    this.entries.clear();
  }
}

/** Unambiguous whatever characters the ids hold: one tenant's key can never be another's. */
function keyOf(tenantId: string, connectorId: string): string {
  return JSON.stringify([tenantId, connectorId]);
}
