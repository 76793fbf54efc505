import { Inject, Injectable, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { Worker, type Job } from 'bullmq';
import type { Logger } from 'pino';
import { QUEUES, runReportSchema, type RunReport } from '@conduit/contracts';
import { RunStateMachine, type ReportOutcome } from './run-state-machine.js';
import { KeyedBatcher } from './keyed-batcher.js';
import { SchedulerQueues } from '../queues/scheduler-queues.js';
import { OutboxRelay } from '../outbox/outbox-relay.js';
import { SCHEDULER_LOGGER, SCHEDULER_SETTINGS } from '../common/tokens.js';
import type { SchedulerSettings } from '../scheduler-settings.js';

/** Reports taken at once; the ones of one run among them are applied in one transaction. */
const REPORT_CONCURRENCY = 16;

/**
 * Consumes executor reports (queue `events.scheduler`) into the run state machine. Reports of one run taken
 * together are applied in one transaction, in queue order (a 40-node run sends ~80 reports in a few hundred ms).
 */
@Injectable()
export class RunReportsWorker implements OnApplicationBootstrap, OnModuleDestroy {
  private worker: Worker | null = null;
  private readonly batcher: KeyedBatcher<RunReport, ReportOutcome>;

  constructor(
    private readonly machine: RunStateMachine,
    private readonly queues: SchedulerQueues,
    private readonly relay: OutboxRelay,
    @Inject(SCHEDULER_LOGGER) private readonly logger: Logger,
    @Inject(SCHEDULER_SETTINGS) private readonly settings: SchedulerSettings,
  ) {
    this.batcher = new KeyedBatcher(
      (report) => `${report.tenant_id}/${report.run_id}`,
      (reports) => this.machine.applyReports(reports),
    );
  }

  onApplicationBootstrap(): void {
    if (!this.settings.background.reports) return;
    this.worker = new Worker(QUEUES.eventsScheduler, (job) => this.handle(job), {
      connection: this.queues.connection,
      prefix: this.queues.prefix,
      concurrency: REPORT_CONCURRENCY,
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
    const outcome = await this.batcher.submit(parsed.data);
    // A node report changes the run row only; the others write an event for the relay to publish.
    if (outcome === 'applied' && parsed.data.type !== 'run.node') this.relay.wake();
    return outcome;
  }
}
