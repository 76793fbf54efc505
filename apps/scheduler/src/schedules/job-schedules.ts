import { Inject, Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { DataSource, IsNull, Not } from 'typeorm';
import type { Logger } from 'pino';
import { JobEntity } from '../jobs/job.entity.js';
import { SchedulerQueues } from '../queues/scheduler-queues.js';
import { TICK_JOB_OPTIONS } from '../queues/job-options.js';
import { nextFireTime } from './next-fire-time.js';
import { SCHEDULER_LOGGER, SCHEDULER_SETTINGS } from '../common/tokens.js';
import type { SchedulerSettings } from '../scheduler-settings.js';

/** What a tick carries: enough to find the job (the tenant scopes the lookup). */
export interface TickData {
  job_id: string;
  tenant_id: string;
}

export type ScheduledJob = Pick<JobEntity, 'id' | 'tenantId' | 'status' | 'schedule' | 'timezone'>;

/**
 * One BullMQ job scheduler per active job with a schedule, id = job id, on the ticks queue. BullMQ creates
 * exactly one delayed job per tick whatever the number of replicas, and a tick that passed while no worker ran
 * is still waiting when one comes back, so it fires once.
 */
@Injectable()
export class JobSchedules implements OnApplicationBootstrap {
  constructor(
    private readonly ds: DataSource,
    private readonly queues: SchedulerQueues,
    @Inject(SCHEDULER_LOGGER) private readonly logger: Logger,
    @Inject(SCHEDULER_SETTINGS) private readonly settings: SchedulerSettings,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (!this.settings.background.ticks) return;
    const { upserted, removed } = await this.reconcile();
    this.logger.info({ upserted, removed }, 'job schedulers reconciled');
  }

  /** Makes the job's scheduler match the job: present with its pattern and zone while active and scheduled. */
  async sync(job: ScheduledJob): Promise<void> {
    if (job.status !== 'active' || job.schedule === null || nextFireTime(job.schedule, job.timezone, new Date()) === null) {
      await this.remove(job.id);
      return;
    }
    await this.upsert(job.id, job.tenantId, job.schedule, job.timezone);
  }

  /** Upserts the scheduler; `pattern` may have a seconds field here (tests use one to tick fast). */
  async upsert(jobId: string, tenantId: string, pattern: string, timezone: string): Promise<void> {
    const data: TickData = { job_id: jobId, tenant_id: tenantId };
    await this.queues.ticks.upsertJobScheduler(jobId, { pattern, tz: timezone }, { name: 'tick', data, opts: TICK_JOB_OPTIONS });
  }

  async remove(jobId: string): Promise<void> {
    await this.queues.ticks.removeJobScheduler(jobId);
  }

  /**
   * At boot: every active scheduled job has its scheduler and no other scheduler remains. A scheduler that is
   * already right is left alone: re-upserting it would replace a tick that fell due while the service was down.
   */
  async reconcile(): Promise<{ upserted: number; removed: number }> {
    const jobs = await this.ds.manager.find(JobEntity, {
      where: { status: 'active', schedule: Not(IsNull()) },
      select: { id: true, tenantId: true, status: true, schedule: true, timezone: true },
    });
    const wanted = new Map(jobs.filter((j) => nextFireTime(j.schedule!, j.timezone, new Date()) !== null).map((j) => [j.id, j]));
    let upserted = 0;
    let removed = 0;
    for (const job of wanted.values()) {
      const current = await this.queues.ticks.getJobScheduler(job.id);
      if (current?.pattern === job.schedule && (current.tz ?? 'UTC') === job.timezone) continue;
      await this.upsert(job.id, job.tenantId, job.schedule!, job.timezone);
      upserted++;
    }
    for (const scheduler of await this.queues.ticks.getJobSchedulers(0, -1)) {
      if (wanted.has(scheduler.key)) continue;
      await this.remove(scheduler.key);
      removed++;
    }
    return { upserted, removed };
  }
}
