import { Inject, Injectable, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { setTimeout as delay } from 'node:timers/promises';
import { DataSource } from 'typeorm';
import type { Logger } from 'pino';
import { ScheduledRuns, FIRE_BATCH, type SnapshotCache } from './scheduled-runs.js';
import { OutboxRelay } from '@conduit/service-kit';
import { SCHEDULER_LOGGER, SCHEDULER_SETTINGS } from '../common/tokens.js';
import type { SchedulerSettings } from '../scheduler-settings.js';

/** The longest the clock sleeps without looking: a job another replica scheduled sooner is seen within this. */
const MAX_IDLE_MS = 500;
/**
 * Batches fired at once: the due jobs are taken with SKIP LOCKED, so lanes (and replicas) never share one. A pass
 * splits what is due evenly among them, so each makes its runs in one batch (up to FIRE_BATCH each).
 */
const LANES = 6;
const RETRY_MS = 1000;
/** The least sleep after a pass that fired nothing while jobs are due: they are held elsewhere (lanes, replicas). */
const HELD_WAIT_MS = 50;
/**
 * How long before a fire time its batches are taken (held, next fires moved on, pipelines asked), so that only the
 * runs' own writes are left for the time itself: the slowest preparation of the last pass, with room, within bounds.
 * A longer lead holds the due jobs longer (a change to one waits for the fire).
 */
const LEAD = { firstMs: 1000, minMs: 250, maxMs: 3000, room: 2 };

/**
 * Fires the due jobs of every replica's schedules: it sleeps until shortly before the earliest next fire (an index
 * read), then takes the jobs due by then in batches, one per lane, and each batch makes its runs once the time has
 * come. A batch makes its runs and moves its jobs' next fires on in one transaction, holding the job rows (SKIP
 * LOCKED), so each fire time makes one run whatever the number of replicas, and a fire that fell due while no
 * replica ran is made once when one is back.
 */
@Injectable()
export class ScheduleClock implements OnApplicationBootstrap, OnModuleDestroy {
  private running = false;
  private loop: Promise<void> | null = null;
  private sleeping: { until: number; wake: () => void } | null = null;
  /** Aborted by stop(): batches waiting for their fire time roll back. */
  private stopping = new AbortController();
  private leadMs = LEAD.firstMs;

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
    this.stopping = new AbortController();
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.running = false;
    this.stopping.abort();
    this.sleeping?.wake();
    await this.loop;
    this.loop = null;
  }

  /** Wakes the clock in time for a job just written to fire at `at`. */
  wakeBy(at: Date): void {
    if (this.sleeping && at.getTime() - this.leadMs < this.sleeping.until) this.sleeping.wake();
  }

  private async run(): Promise<void> {
    while (this.running) {
      try {
        const next = await this.nextDue();
        const now = Date.now();
        if (next === null || next - this.leadMs > now) {
          await this.sleepUntil(Math.min(next === null ? Infinity : next - this.leadMs, now + MAX_IDLE_MS));
          continue;
        }
        const fired = await this.pass(new Date(Math.max(next, now)));
        // Due jobs another replica holds would otherwise have the loop spin with no sleep until they are released.
        if (fired === 0) await this.sleepUntil(Date.now() + HELD_WAIT_MS);
      } catch (err) {
        // Stopping rolls back the batches waiting for their fire time: nothing failed.
        if (!this.running) break;
        this.logger.warn({ err }, 'schedule clock: firing failed; trying again');
        await this.sleepUntil(Date.now() + RETRY_MS);
      }
    }
  }

  /** Fires the jobs due by `at` (now or shortly ahead), split among the lanes; answers how many it took. */
  private async pass(at: Date): Promise<number> {
    const snapshots: SnapshotCache = new Map();
    const due = await this.runs.countDue(at);
    const limit = Math.min(FIRE_BATCH, Math.max(1, Math.ceil(due / LANES)));
    const prepared: number[] = [];
    // Every lane ends before the pass does (a failed one included): no lane outlives stop() or overlaps the next pass.
    const lanes = await Promise.allSettled(
      Array.from({ length: LANES }, () => this.fireAll(at, limit, snapshots, prepared)),
    );
    const fired = lanes.reduce((sum, l) => sum + (l.status === 'fulfilled' ? l.value : 0), 0);
    // Published once every due batch is written: the relay's work would otherwise slow the batches still due.
    if (fired > 0) this.relay.wake();
    if (prepared.length > 0) this.leadMs = leadAfter(Math.max(...prepared));
    const failed = lanes.find((l): l is PromiseRejectedResult => l.status === 'rejected');
    if (failed) throw failed.reason;
    return fired;
  }

  /**
   * Fires batches of `limit` until one is not full: nothing more is due (or the rest is held by another lane or
   * replica). Answers how many jobs it took; `prepared` gets how long each batch taken ahead of `at` took to be ready.
   */
  private async fireAll(at: Date, limit: number, snapshots: SnapshotCache, prepared: number[]): Promise<number> {
    let total = 0;
    while (this.running) {
      const started = Date.now();
      const untilDue = async (when: Date): Promise<void> => {
        if (started >= when.getTime()) return;
        prepared.push(Date.now() - started);
        await delay(Math.max(0, when.getTime() - Date.now()), undefined, { signal: this.stopping.signal });
      };
      const taken = await this.runs.fireDue({ at, limit, snapshots, untilDue });
      total += taken;
      if (taken < limit) break;
    }
    return total;
  }

  /** The earliest next fire of an active job, in ms; null when none is scheduled. */
  private async nextDue(): Promise<number | null> {
    const [row] = await this.ds.query<{ next: Date | null }[]>(
      `SELECT min(next_fire_at) AS next FROM jobs WHERE status = 'active' AND next_fire_at IS NOT NULL`,
    );
    return row?.next ? new Date(row.next).getTime() : null;
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

/** The lead for the next pass, from the slowest preparation of this one. */
function leadAfter(slowestMs: number): number {
  return Math.round(Math.min(LEAD.maxMs, Math.max(LEAD.minMs, slowestMs * LEAD.room)));
}
