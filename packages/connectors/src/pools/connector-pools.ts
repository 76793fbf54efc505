/**
 * The executor's connection pools: one bounded pool per tenant, connector and connector version, shared by the nodes
 * and runs of one process. A pool is closed when it has been idle for `idleMs`, when a newer version of its connector
 * is used (a changed config never reuses connections opened, and checked, for the old one) and by `closeAll()`.
 */
import { createHash } from 'node:crypto';

export interface ConnectorPoolOptions {
  /** Connections one pool opens at most; further users wait for one to come back. Default 4. */
  max?: number;
  /** A connection unused this long is closed, and so is a pool none of whose connections is in use. Default 30000. */
  idleMs?: number;
  /**
   * Pools kept open at most: past it, a new pool first closes the least recently used idle ones, so one tenant's many
   * connectors cannot hold the process's sockets. Pools in use are never closed for it. Default 64.
   */
  maxPools?: number;
}

export const DEFAULT_CONNECTOR_POOL_MAX = 4;
export const DEFAULT_CONNECTOR_POOL_IDLE_MS = 30_000;
export const DEFAULT_CONNECTOR_POOLS_MAX = 64;

/** What the registry needs of a driver's pool (pg.Pool and mysql2's pool, wrapped). */
export interface ClosablePool {
  /** Closes every connection; connections in use are closed when they come back. */
  end(): Promise<void>;
}

/** Which pool a driver call uses: the registry and the connector (the tenant comes with the request). */
export interface PoolScope {
  pools: ConnectorPools;
  connectorId: string;
}

interface Entry {
  version: string;
  pool: ClosablePool;
  /** Leases not yet given back: a pool is never closed under them for being idle. */
  inUse: number;
  lastUsed: number;
  /** When it was last given back, in this registry's own count of give-backs: the order to close idle pools in. */
  givenBackAt: number;
  /** Replaced by a newer version or closed: it closes as soon as nothing uses it. */
  retired: boolean;
}

/** Takes a pool for one call and gives it back: `done()` exactly once. */
export interface PoolUse<P> {
  pool: P;
  done(): void;
}

/** A version of a config: equal configs (whatever their keys' order) hash alike, any change hashes differently. */
export function configVersion(config: unknown): string {
  return createHash('sha256').update(canonicalJson(config)).digest('base64url');
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

export class ConnectorPools {
  readonly max: number;
  readonly idleMs: number;
  readonly maxPools: number;
  private readonly entries = new Map<string, Entry>();
  private readonly closing = new Set<Promise<void>>();
  private sweeper: NodeJS.Timeout | undefined;
  private closed = false;
  private givenBack = 0;

  constructor(opts: ConnectorPoolOptions = {}) {
    this.max = opts.max ?? DEFAULT_CONNECTOR_POOL_MAX;
    this.idleMs = opts.idleMs ?? DEFAULT_CONNECTOR_POOL_IDLE_MS;
    this.maxPools = opts.maxPools ?? DEFAULT_CONNECTOR_POOLS_MAX;
    if (!Number.isInteger(this.max) || this.max < 1) throw new RangeError('max must be a positive integer');
    if (!Number.isInteger(this.maxPools) || this.maxPools < 1) {
      throw new RangeError('maxPools must be a positive integer');
    }
    if (!Number.isInteger(this.idleMs) || this.idleMs < 1) throw new RangeError('idleMs must be a positive integer');
  }

  /** Pools open now (for tests and metrics). */
  get size(): number {
    return this.entries.size;
  }

  /**
   * The pool of `kind` (the connector type) for this tenant, connector and config version, made by `create` on first
   * use. A different version of the same tenant's connector retires the pool of the old one.
   */
  use<P extends ClosablePool>(
    kind: string,
    tenantId: string,
    connectorId: string,
    config: unknown,
    create: () => P,
  ): PoolUse<P> {
    if (this.closed) throw new Error('the connector pools are closed');
    const key = JSON.stringify([kind, tenantId, connectorId]);
    const version = configVersion(config);
    let entry = this.entries.get(key);
    if (entry && entry.version !== version) {
      this.retire(key, entry);
      entry = undefined;
    }
    if (!entry) {
      this.makeRoom();
      entry = { version, pool: create(), inUse: 0, lastUsed: Date.now(), givenBackAt: this.givenBack, retired: false };
      this.entries.set(key, entry);
      this.startSweeping();
    }
    const used = entry;
    used.inUse += 1;
    let given = false;
    return {
      pool: used.pool as P,
      done: () => {
        if (given) return;
        given = true;
        used.inUse -= 1;
        used.lastUsed = Date.now();
        used.givenBackAt = ++this.givenBack;
        if (used.retired && used.inUse === 0) this.end(used);
      },
    };
  }

  /** Closes every pool (executor shutdown); a connection still in use closes when it comes back. Later `use` calls throw. */
  async closeAll(): Promise<void> {
    this.closed = true;
    clearInterval(this.sweeper);
    this.sweeper = undefined;
    for (const [key, entry] of this.entries) {
      this.entries.delete(key);
      entry.retired = true;
      this.end(entry);
    }
    await Promise.all(this.closing);
  }

  /** Closes idle pools, least recently used first, until a new one fits under `maxPools` (or none is idle). */
  private makeRoom(): void {
    if (this.entries.size < this.maxPools) return;
    const idle = [...this.entries]
      .filter(([, e]) => e.inUse === 0)
      .sort(([, a], [, b]) => a.givenBackAt - b.givenBackAt);
    for (const [key, entry] of idle) {
      if (this.entries.size < this.maxPools) return;
      this.retire(key, entry);
    }
  }

  private retire(key: string, entry: Entry): void {
    this.entries.delete(key);
    entry.retired = true;
    if (entry.inUse === 0) this.end(entry);
  }

  private end(entry: Entry): void {
    const ending = entry.pool.end().catch(() => undefined);
    this.closing.add(ending);
    void ending.finally(() => this.closing.delete(ending));
  }

  /** Closes pools idle for `idleMs`; stops looking while there are none. */
  private startSweeping(): void {
    if (this.sweeper) return;
    this.sweeper = setInterval(
      () => {
        const now = Date.now();
        for (const [key, entry] of this.entries) {
          if (entry.inUse === 0 && now - entry.lastUsed >= this.idleMs) this.retire(key, entry);
        }
        if (this.entries.size === 0) {
          clearInterval(this.sweeper);
          this.sweeper = undefined;
        }
      },
      Math.max(10, Math.ceil(this.idleMs / 2)),
    );
    // Idle pools never keep the process alive.
    this.sweeper.unref();
  }
}
