/**
 * Groups items submitted concurrently under one key and hands each group to `apply` in submission order, one group
 * per key at a time: what arrives while a key's group is being applied waits and forms that key's next group.
 * With one key for everything it is a turn batcher: one group in flight, what arrives meanwhile forms the next (the
 * scheduler's reports, applied a group per transaction whatever runs they are of).
 */
export type ApplyBatch<T, R> = (items: T[]) => Promise<R[]>;

interface Pending<T, R> {
  item: T;
  resolve: (result: R) => void;
  reject: (err: unknown) => void;
}

export class KeyedBatcher<T, R> {
  private readonly waiting = new Map<string, Pending<T, R>[]>();
  private readonly busy = new Set<string>();

  constructor(
    private readonly keyOf: (item: T) => string,
    private readonly apply: ApplyBatch<T, R>,
    /** Most items in one group; default 100. */
    private readonly maxBatch = 100,
  ) {}

  /** Resolves with the item's own result once its group is applied. */
  submit(item: T): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      const key = this.keyOf(item);
      const queue = this.waiting.get(key);
      if (queue) queue.push({ item, resolve, reject });
      else this.waiting.set(key, [{ item, resolve, reject }]);
      if (this.busy.has(key)) return;
      this.busy.add(key);
      // One turn of the event loop lets the other jobs already fetched join the first group.
      setImmediate(() => void this.drain(key));
    });
  }

  private async drain(key: string): Promise<void> {
    for (;;) {
      const queue = this.waiting.get(key);
      if (!queue || queue.length === 0) {
        this.waiting.delete(key);
        this.busy.delete(key);
        return;
      }
      const group = queue.splice(0, this.maxBatch);
      await this.applyGroup(group);
    }
  }

  /** A failed group is retried item by item, so one bad item fails only itself. */
  private async applyGroup(group: Pending<T, R>[]): Promise<void> {
    try {
      const results = await this.apply(group.map((p) => p.item));
      group.forEach((p, i) => p.resolve(results[i]!));
    } catch (err) {
      if (group.length === 1) {
        group[0]!.reject(err);
        return;
      }
      for (const pending of group) await this.applyGroup([pending]);
    }
  }
}
