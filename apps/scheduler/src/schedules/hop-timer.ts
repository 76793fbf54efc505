/** Milliseconds spent in each named step, one after the other: where a batch's time goes, for its log line. */
export class HopTimer {
  readonly laps: Record<string, number> = {};
  private last = performance.now();

  lap(name: string): void {
    const now = performance.now();
    this.laps[name] = Math.round(now - this.last);
    this.last = now;
  }
}
