/**
 * Copies of another owner's data held by a service, bounded in entries, in bytes (as the caller counts them) and in
 * age: the least recently used goes first. Whether a copy is still current is the caller's question (a version, a
 * generation, a guarded write); this only keeps the memory bounded and drops what has been held too long.
 */
export interface LruCopiesOptions {
  /** Entries held at most. */
  maxEntries: number;
  /** Bytes held at most, all entries together, as `set` counts them. Default: no bound. */
  maxBytes?: number;
  /** How long an entry is answered after it was set. */
  ttlMs: number;
  /** A monotonic clock in ms. Default: performance.now. */
  now?: () => number;
}

interface Entry<V> {
  value: V;
  bytes: number;
  expiresAt: number;
}

export class LruCopies<V> {
  /** In order of use, oldest first (a Map keeps insertion order; a hit moves its entry to the end). */
  private readonly entries = new Map<string, Entry<V>>();
  private readonly maxBytes: number;
  private readonly now: () => number;
  private bytes = 0;

  constructor(private readonly opts: LruCopiesOptions) {
    this.maxBytes = opts.maxBytes ?? Infinity;
    this.now = opts.now ?? performance.now.bind(performance);
  }

  get size(): number {
    return this.entries.size;
  }

  /** The value held under `key`, unless it expired (then it is dropped). */
  get(key: string): V | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt <= this.now()) {
      this.delete(key);
      return undefined;
    }
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry.value;
  }

  /** Holds `value` (replacing what `key` held) unless it alone is over the bytes bound; drops the oldest beyond. */
  set(key: string, value: V, bytes = 0): void {
    this.delete(key);
    if (bytes > this.maxBytes) return;
    this.entries.set(key, { value, bytes, expiresAt: this.now() + this.opts.ttlMs });
    this.bytes += bytes;
    for (const oldest of this.entries.keys()) {
      if (this.entries.size <= this.opts.maxEntries && this.bytes <= this.maxBytes) break;
      this.delete(oldest);
    }
  }

  delete(key: string): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    this.bytes -= entry.bytes;
  }
}

/** A key of several ids, unambiguous whatever characters they hold: one tenant's key can never be another's. */
export function copyKeyOf(...ids: string[]): string {
  return JSON.stringify(ids);
}
