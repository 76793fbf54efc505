import { Inject, Injectable } from '@nestjs/common';
import type { Logger } from 'pino';
import { QUEUES, type RunReport } from '@conduit/contracts';
import { JobConsumer, OutboxRelay, QueueWorkers, type ConsumerOptions, type JobHandlers } from '@conduit/service-kit';
import { RunStateMachine, type ReportOutcome } from './run-state-machine.js';
import { KeyedBatcher } from './keyed-batcher.js';
import { SCHEDULER_LOGGER, SCHEDULER_SETTINGS } from '../common/tokens.js';
import type { SchedulerSettings } from '../scheduler-settings.js';

/**
 * Reports taken at once: those that arrive while a batch is being applied form the next one, so a turn's reports of
 * every run cost one transaction (a 40-node run sends ~80 reports in a few hundred ms; 1-node runs, a few each).
 */
const REPORT_CONCURRENCY = 64;

/** Reports applied in one transaction at most. */
const REPORTS_PER_BATCH = 200;

/** Every report goes to one batcher key: one batch in flight, so one run's reports are applied in queue order. */
const ONE_LANE = 'reports';

/**
 * Consumes executor reports (queue `events.scheduler`) into the run state machine. The reports taken together, of
 * any runs, are applied in one transaction in queue order (run-state-machine.ts applyReports).
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
      () => ONE_LANE,
      (reports) => this.machine.applyReports(reports),
      REPORTS_PER_BATCH,
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
