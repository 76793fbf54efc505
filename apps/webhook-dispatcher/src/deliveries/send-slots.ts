/**
 * Room for attempts in this process (the AttemptRunner sizes it: several per POST slot). New attempts wait a little for free slots rather
 * than spilling to the queue: waiting keeps the backlog in events.webhooks (shared by the replicas) and saves the
 * queued path's claim round trip, queue hop and their scripts (several times an inline attempt's cost); after
 * `maxWaitMs` they take what is free, maybe none. A taker waits for half the slots at most, not all: the next batch
 * is then written while the previous one is still sending, instead of after its last answer.
 */
export class SendSlots {
  private used = 0;
  private readonly waiters = new Set<() => void>();

  constructor(
    private readonly size: number,
    private readonly maxWaitMs: number,
  ) {}

  /**
   * Takes up to `wanted` slots, waiting up to maxWaitMs for `enough(wanted)` of them to be free; answers how many it
   * took (fewer than enough when the wait ran out).
   */
  async take(wanted: number): Promise<number> {
    const deadline = Date.now() + this.maxWaitMs;
    const enough = this.enough(wanted);
    while (this.size - this.used < enough && Date.now() < deadline) await this.freed(deadline - Date.now());
    const granted = Math.max(0, Math.min(wanted, this.size - this.used));
    this.used += granted;
    return granted;
  }

  /** How many free slots a taker of `wanted` waits for: all it wants, up to half the slots. */
  enough(wanted: number): number {
    return Math.min(wanted, Math.ceil(this.size / 2));
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
