import { Inject, Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { Logger } from 'pino';
import type { JobEntity } from '../jobs/job.entity.js';
import { QUEUES } from '@conduit/contracts';
import { QueueProducers } from '@conduit/service-kit';
import { nextFireTime } from './next-fire-time.js';
import { ScheduleClock } from './schedule-clock.js';
import { SCHEDULER_LOGGER, SCHEDULER_SETTINGS } from '../common/tokens.js';
import type { SchedulerSettings } from '../scheduler-settings.js';

export type ScheduledJob = Pick<JobEntity, 'id' | 'status' | 'schedule' | 'timezone' | 'nextFireAt'>;

/** When a job fires next from `now`: null while paused, without a schedule, or on a date that never comes. */
export function nextFireOf(job: Pick<JobEntity, 'status' | 'schedule' | 'timezone'>, now: Date): Date | null {
  if (job.status !== 'active' || job.schedule === null) return null;
  return nextFireTime(job.schedule, job.timezone, now);
}

/**
 * Each active scheduled job holds its next fire time (`jobs.next_fire_at`, written with the job); the schedule clock
 * fires the due ones. This keeps the clock told of changes, and at boot fills the jobs that have no next fire yet
 * (jobs from before the column) and removes the BullMQ job schedulers of the former design.
 */
@Injectable()
export class JobSchedules implements OnApplicationBootstrap {
  constructor(
    private readonly ds: DataSource,
    private readonly producers: QueueProducers,
    private readonly clock: ScheduleClock,
    @Inject(SCHEDULER_LOGGER) private readonly logger: Logger,
    @Inject(SCHEDULER_SETTINGS) private readonly settings: SchedulerSettings,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (!this.settings.background.ticks) return;
    const { filled, removedSchedulers } = await this.reconcile();
    this.logger.info({ filled, removed_schedulers: removedSchedulers }, 'job schedules reconciled');
  }

  /** Tells the clock the job's next fire, which may come before the clock's next wake-up. */
  sync(job: ScheduledJob): void {
    if (job.nextFireAt) this.clock.wakeBy(job.nextFireAt);
  }

  /**
   * Gives every active scheduled job without a next fire its next one from now. A job whose fire fell due while the
   * service was down keeps it: the clock fires it once when it starts (no storm of missed runs).
   */
  async reconcile(now = new Date()): Promise<{ filled: number; removedSchedulers: number }> {
    const missing = await this.ds.query<Pick<JobEntity, 'id' | 'status' | 'schedule' | 'timezone'>[]>(
      `SELECT id, status, schedule, timezone FROM jobs WHERE status = 'active' AND schedule IS NOT NULL AND next_fire_at IS NULL`,
    );
    const fills = missing.map((j) => ({ id: j.id, next: nextFireOf(j, now) })).filter((f) => f.next !== null);
    if (fills.length > 0) {
      await this.ds.query(
        `UPDATE jobs SET next_fire_at = v.next FROM unnest($1::text[], $2::timestamptz[]) AS v(id, next)
         WHERE jobs.id = v.id AND jobs.next_fire_at IS NULL`,
        [fills.map((f) => f.id), fills.map((f) => f.next)],
      );
    }
    let removedSchedulers = 0;
    const ticks = this.producers.of(QUEUES.schedulerTicks).queue;
    for (const scheduler of await ticks.getJobSchedulers(0, -1)) {
      await ticks.removeJobScheduler(scheduler.key);
      removedSchedulers++;
    }
    return { filled: fills.length, removedSchedulers };
  }
}
