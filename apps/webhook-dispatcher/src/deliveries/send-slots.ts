/**
 * The in-process sending slots (`deliveryConcurrency` of them). New attempts wait a little for free slots rather
 * than spilling to the queue: waiting keeps the backlog in events.webhooks (shared by the replicas) and saves the
 * queued path's claim round trip, queue hop and their scripts (several times an inline attempt's cost); after
 * `maxWaitMs` they take what is free, maybe none.
 */
export class SendSlots {
  private used = 0;
  private readonly waiters = new Set<() => void>();

  constructor(
    private readonly size: number,
    private readonly maxWaitMs: number,
  ) {}

  /** Takes up to `wanted` slots, waiting up to maxWaitMs for that many (or all) to be free; answers how many it took. */
  async take(wanted: number): Promise<number> {
    const deadline = Date.now() + this.maxWaitMs;
    const enough = Math.min(wanted, this.size);
    while (this.size - this.used < enough && Date.now() < deadline) await this.freed(deadline - Date.now());
    const granted = Math.max(0, Math.min(wanted, this.size - this.used));
    this.used += granted;
    return granted;
  }

  give(count: number): void {
    if (count <= 0) return;
    this.used -= count;
    for (const wake of this.waiters) wake();
  }

  /** Resolves when a slot is given back, or after `ms`. */
  private freed(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const wake = (): void => {
        clearTimeout(timer);
        this.waiters.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, ms);
      this.waiters.add(wake);
    });
  }
}
