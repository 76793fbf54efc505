import { Inject, Injectable, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { Worker, type Job } from 'bullmq';
import type { Logger } from 'pino';
import { AppError, QUEUES, newId, type Run } from '@conduit/contracts';
import { RunsService } from '../runs/runs.service.js';
import { SchedulerQueues, cronRepeatStrategy } from '../queues/scheduler-queues.js';
import { JobSchedules, type TickData } from './job-schedules.js';
import { SCHEDULER_LOGGER, SCHEDULER_SETTINGS } from '../common/tokens.js';
import type { SchedulerSettings } from '../scheduler-settings.js';

/** Turns each cron tick into a run with trigger `schedule`, through the same path as Trigger Run. */
@Injectable()
export class TickWorker implements OnApplicationBootstrap, OnModuleDestroy {
  private worker: Worker | null = null;

  constructor(
    private readonly runs: RunsService,
    private readonly schedules: JobSchedules,
    private readonly queues: SchedulerQueues,
    @Inject(SCHEDULER_LOGGER) private readonly logger: Logger,
    @Inject(SCHEDULER_SETTINGS) private readonly settings: SchedulerSettings,
  ) {}

  onApplicationBootstrap(): void {
    if (this.settings.background.ticks) this.start();
  }

  async onModuleDestroy(): Promise<void> {
    await this.stop();
  }

  /** Starts consuming ticks (tests stop and start it to leave a tick unserved for a while). */
  start(): void {
    if (this.worker) return;
    this.worker = new Worker(QUEUES.schedulerTicks, (job) => this.handle(job), {
      connection: this.queues.connection,
      prefix: this.queues.prefix,
      concurrency: 4,
      // The worker schedules the next tick when it takes one: it must compute it as the queue does.
      settings: { repeatStrategy: cronRepeatStrategy },
    });
    this.worker.on('error', (err) => this.logger.warn({ err }, 'scheduler-ticks worker error'));
  }

  async stop(): Promise<void> {
    const worker = this.worker;
    this.worker = null;
    await worker?.close();
  }

  async handle(job: Pick<Job<TickData>, 'id' | 'data'>): Promise<Run | null> {
    const { job_id: jobId, tenant_id: tenantId } = job.data;
    const ctx = { tenant_id: tenantId, scopes: ['read' as const], request_id: newId('request') };
    try {
      const run = await this.runs.triggerTick(ctx, jobId, String(job.id));
      if (!run) this.logger.info({ job_id: jobId, tick: job.id }, 'tick skipped: already handled, or the job is paused');
      return run;
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      if (err.code === 'not_found') {
        // The job is gone: its scheduler should have gone with it.
        await this.schedules.remove(jobId);
        this.logger.warn({ job_id: jobId }, 'tick of a deleted job: its scheduler was removed');
      } else {
        this.logger.warn({ job_id: jobId, tick: job.id, code: err.code, detail: err.message }, 'tick skipped');
      }
      return null;
    }
  }
}
