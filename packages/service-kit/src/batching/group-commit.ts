interface Waiting<T, R> {
  item: T;
  resolve: (result: R) => void;
  reject: (err: unknown) => void;
}

/** A result that puts its item back at the head of the queue, for the next batch (e.g. no room for it in this one). */
export const AGAIN: unique symbol = Symbol('group-commit.again');

/**
 * Group commit: items submitted while a batch is being written wait and go together in the next one, so a burst
 * costs one round trip per batch rather than per item (each write is a syscall and a database round trip). The
 * first item of a quiet moment waits only for the end of the current turn of the event loop. One batch runs at a
 * time; `write` answers one result per item, in order (AGAIN for an item to take again, ahead of later ones), or
 * throws to fail the whole batch.
 */
export class GroupCommit<T, R> {
  private queue: Waiting<T, R>[] = [];
  private draining: Promise<void> | null = null;

  constructor(
    private readonly write: (items: T[]) => Promise<(R | typeof AGAIN)[]>,
    private readonly maxBatch: number,
  ) {}

  submit(item: T): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      this.draining ??= this.drain();
    });
  }

  /** Resolves once everything submitted so far is written (or has failed to its caller). */
  async idle(): Promise<void> {
    while (this.draining) await this.draining;
  }

  private async drain(): Promise<void> {
    // Let the items of this turn of the event loop join the first batch.
    await new Promise<void>((r) => setImmediate(r));
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0, this.maxBatch);
      try {
        const results = await this.write(batch.map((w) => w.item));
        const again = batch.filter((w, i) => results[i] === AGAIN);
        batch.forEach((w, i) => results[i] !== AGAIN && w.resolve(results[i] as R));
        this.queue.unshift(...again);
      } catch (err) {
        for (const w of batch) w.reject(err);
      }
    }
    this.draining = null;
  }
}

/**
 * Wraps a batch write so that a batch that fails is written again item by item: one item that cannot be written
 * fails alone (its Error as its result), and the others are written. Pair with a GroupCommit of `R | Error`.
 * `itemsOwn` says which failures may be one item's (default: any); any other (the store away) is every item's at
 * once, with no retry one by one, each caller trying again on its own schedule.
 */
export function failingAlone<T, R>(
  write: (items: T[]) => Promise<R[]>,
  itemsOwn: (err: unknown) => boolean = () => true,
): (items: T[]) => Promise<(R | Error)[]> {
  const isolated = async (items: T[]): Promise<(R | Error)[]> => {
    try {
      return await write(items);
    } catch (err) {
      const error = err instanceof Error ? err : new Error(String(err));
      if (items.length === 1 || !itemsOwn(err)) return items.map(() => error);
      const alone: (R | Error)[] = [];
      for (const item of items) alone.push((await isolated([item]))[0]!);
      return alone;
    }
  };
  return isolated;
}
