import { Inject, Injectable } from '@nestjs/common';
import type { Logger } from 'pino';
import { QUEUES, type RunReport } from '@conduit/contracts';
import { JobConsumer, OutboxRelay, QueueWorkers, type ConsumerOptions, type JobHandlers } from '@conduit/service-kit';
import { RunStateMachine, type ReportOutcome } from './run-state-machine.js';
import { KeyedBatcher } from './keyed-batcher.js';
import { SCHEDULER_LOGGER, SCHEDULER_SETTINGS } from '../common/tokens.js';
import type { SchedulerSettings } from '../scheduler-settings.js';

/** Reports taken at once; the ones of one run among them are applied in one transaction. */
const REPORT_CONCURRENCY = 16;

/**
 * Consumes executor reports (queue `events.scheduler`) into the run state machine. Reports of one run taken
 * together are applied in one transaction, in queue order (a 40-node run sends ~80 reports in a few hundred ms).
 */
@Injectable()
export class RunReportsWorker extends JobConsumer<typeof QUEUES.eventsScheduler> {
  private readonly batcher: KeyedBatcher<RunReport, ReportOutcome>;

  constructor(
    workers: QueueWorkers,
    private readonly machine: RunStateMachine,
    private readonly relay: OutboxRelay,
    @Inject(SCHEDULER_LOGGER) logger: Logger,
    @Inject(SCHEDULER_SETTINGS) private readonly settings: SchedulerSettings,
  ) {
    super(QUEUES.eventsScheduler, workers, logger);
    this.batcher = new KeyedBatcher(
      (report) => `${report.tenant_id}/${report.run_id}`,
      (reports) => this.machine.applyReports(reports),
    );
  }

  protected consumerOptions(): ConsumerOptions {
    return { enabled: this.settings.background.reports, concurrency: REPORT_CONCURRENCY };
  }

  protected handlers(): JobHandlers<typeof QUEUES.eventsScheduler> {
    const apply = (report: RunReport) => this.apply(report);
    return { 'run.started': apply, 'run.node': apply, 'run.finished': apply };
  }

  /** Applies one report. */
  private async apply(report: RunReport): Promise<ReportOutcome> {
    const outcome = await this.batcher.submit(report);
    // A node report changes the run row only; the others write an event for the relay to publish.
    if (outcome === 'applied' && report.type !== 'run.node') this.relay.wake();
    return outcome;
  }
}
