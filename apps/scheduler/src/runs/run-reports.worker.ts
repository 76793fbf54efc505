import { Inject, Injectable, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { Worker, type Job } from 'bullmq';
import type { Logger } from 'pino';
import { QUEUES, runReportSchema } from '@conduit/contracts';
import { RunStateMachine, type ReportOutcome } from './run-state-machine.js';
import { SchedulerQueues } from '../queues/scheduler-queues.js';
import { OutboxRelay } from '../outbox/outbox-relay.js';
import { SCHEDULER_LOGGER, SCHEDULER_SETTINGS } from '../common/tokens.js';
import type { SchedulerSettings } from '../scheduler-settings.js';

/** Consumes executor reports (queue `events.scheduler`) into the run state machine. */
@Injectable()
export class RunReportsWorker implements OnApplicationBootstrap, OnModuleDestroy {
  private worker: Worker | null = null;

  constructor(
    private readonly machine: RunStateMachine,
    private readonly queues: SchedulerQueues,
    private readonly relay: OutboxRelay,
    @Inject(SCHEDULER_LOGGER) private readonly logger: Logger,
    @Inject(SCHEDULER_SETTINGS) private readonly settings: SchedulerSettings,
  ) {}

  onApplicationBootstrap(): void {
    if (!this.settings.background.reports) return;
    this.worker = new Worker(QUEUES.eventsScheduler, (job) => this.handle(job), {
      connection: this.queues.connection,
      prefix: this.queues.prefix,
      concurrency: 8,
    });
    this.worker.on('error', (err) => this.logger.warn({ err }, 'events.scheduler worker error'));
  }

  async onModuleDestroy(): Promise<void> {
    await this.worker?.close();
  }

  /** Applies one report. A malformed one is logged and dropped: retrying cannot fix it. */
  async handle(job: Pick<Job, 'id' | 'data'>): Promise<ReportOutcome | 'malformed'> {
    const parsed = runReportSchema.safeParse(job.data);
    if (!parsed.success) {
      this.logger.error({ job_id: job.id, issues: parsed.error.issues.slice(0, 5) }, 'malformed run report dropped');
      return 'malformed';
    }
    const outcome = await this.machine.applyReport(parsed.data);
    if (outcome === 'applied') this.relay.wake();
    return outcome;
  }
}
