import { Inject, Injectable, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { Logger } from 'pino';
import { ScheduledRuns, FIRE_BATCH, type SnapshotCache } from './scheduled-runs.js';
import { OutboxRelay } from '@conduit/service-kit';
import { SCHEDULER_LOGGER, SCHEDULER_SETTINGS } from '../common/tokens.js';
import type { SchedulerSettings } from '../scheduler-settings.js';

/** The longest the clock sleeps without looking: a job another replica scheduled sooner is seen within this. */
const MAX_IDLE_MS = 500;
/** Batches fired at once: the due jobs are taken with SKIP LOCKED, so lanes (and replicas) never share one. */
const LANES = 6;
const RETRY_MS = 1000;
/** The least sleep after a pass that fired nothing while jobs are due: they are held elsewhere (lanes, replicas). */
const HELD_WAIT_MS = 50;

/**
 * Fires the due jobs of every replica's schedules: it sleeps until the earliest next fire (an index read), then takes
 * the due jobs in batches until none is left. A batch makes its runs and moves its jobs' next fires on in one
 * transaction, holding the job rows (SKIP LOCKED), so each fire time makes one run whatever the number of replicas,
 * and a fire that fell due while no replica ran is made once when one is back.
 */
@Injectable()
export class ScheduleClock implements OnApplicationBootstrap, OnModuleDestroy {
  private running = false;
  private loop: Promise<void> | null = null;
  private sleeping: { until: number; wake: () => void } | null = null;

  constructor(
    private readonly ds: DataSource,
    private readonly runs: ScheduledRuns,
    private readonly relay: OutboxRelay,
    @Inject(SCHEDULER_LOGGER) private readonly logger: Logger,
    @Inject(SCHEDULER_SETTINGS) private readonly settings: SchedulerSettings,
  ) {}

  onApplicationBootstrap(): void {
    if (this.settings.background.ticks) this.start();
  }

  async onModuleDestroy(): Promise<void> {
    await this.stop();
  }

  /** Starts firing (tests stop and start it to leave a fire time unserved for a while). */
  start(): void {
    if (this.running) return;
    this.running = true;
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.running = false;
    this.sleeping?.wake();
    await this.loop;
    this.loop = null;
  }

  /** Wakes the clock by `at` at the latest (a job just written to fire then). */
  wakeBy(at: Date): void {
    if (this.sleeping && at.getTime() < this.sleeping.until) this.sleeping.wake();
  }

  private async run(): Promise<void> {
    while (this.running) {
      try {
        const snapshots: SnapshotCache = new Map();
        // Every lane ends before the pass does (a failed one included): no lane outlives stop() or overlaps the next pass.
        const lanes = await Promise.allSettled(Array.from({ length: LANES }, () => this.fireAll(snapshots)));
        const fired = lanes.map((l) => (l.status === 'fulfilled' ? l.value : 0));
        // Published once every due batch is written: the relay's work would otherwise slow the batches still due.
        if (fired.some((n) => n > 0)) this.relay.wake();
        const failed = lanes.find((l): l is PromiseRejectedResult => l.status === 'rejected');
        if (failed) throw failed.reason;
        const next = await this.nextDue();
        // Due jobs another replica holds would otherwise have the loop spin with no sleep until they are released.
        const held = fired.every((n) => n === 0) && next <= Date.now();
        await this.sleepUntil(held ? Date.now() + HELD_WAIT_MS : next);
      } catch (err) {
        this.logger.warn({ err }, 'schedule clock: firing failed; trying again');
        await this.sleepUntil(Date.now() + RETRY_MS);
      }
    }
  }

  /**
   * Fires batches until one is not full: nothing more is due (or the rest is held by another lane or replica).
   * Answers how many jobs it took.
   */
  private async fireAll(snapshots: SnapshotCache): Promise<number> {
    let total = 0;
    while (this.running) {
      const taken = await this.runs.fireDue(new Date(), snapshots);
      total += taken;
      if (taken < FIRE_BATCH) break;
    }
    return total;
  }

  private async nextDue(): Promise<number> {
    const [row] = await this.ds.query<{ next: Date | null }[]>(
      `SELECT min(next_fire_at) AS next FROM jobs WHERE status = 'active' AND next_fire_at IS NOT NULL`,
    );
    const idleUntil = Date.now() + MAX_IDLE_MS;
    return row?.next ? Math.min(new Date(row.next).getTime(), idleUntil) : idleUntil;
  }

  private sleepUntil(until: number): Promise<void> {
    if (!this.running) return Promise.resolve();
    return new Promise((resolve) => {
      const wake = (): void => {
        clearTimeout(timer);
        this.sleeping = null;
        resolve();
      };
      const timer = setTimeout(wake, Math.max(0, until - Date.now()));
      this.sleeping = { until, wake };
    });
  }
}
