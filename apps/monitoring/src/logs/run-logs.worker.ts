import { Inject, Injectable } from '@nestjs/common';
import type { Job } from 'bullmq';
import type { Logger } from 'pino';
import { QUEUES } from '@conduit/contracts';
import { JobConsumer, QueueWorkers, type ConsumerOptions, type JobHandlers } from '@conduit/service-kit';
import { MAX_LOG_BATCHES, RunLogStore } from './run-log-store.js';
import { MonitoringMetrics } from '../telemetry/monitoring-metrics.js';
import { MONITORING_LOGGER, MONITORING_SETTINGS } from '../common/tokens.js';
import type { MonitoringSettings } from '../monitoring-settings.js';

/** Consumes `logs`: batches of run log lines from the executors. */
@Injectable()
export class RunLogsWorker extends JobConsumer<typeof QUEUES.logs> {
  constructor(
    workers: QueueWorkers,
    private readonly store: RunLogStore,
    private readonly metrics: MonitoringMetrics,
    @Inject(MONITORING_LOGGER) logger: Logger,
    @Inject(MONITORING_SETTINGS) private readonly settings: MonitoringSettings,
  ) {
    super(QUEUES.logs, workers, logger);
  }

  protected consumerOptions(): ConsumerOptions {
    // Each batch waits only for its statement: taking a statement's worth of jobs at once lets a burst be stored in
    // full statements.
    return { enabled: this.settings.background.logs, concurrency: MAX_LOG_BATCHES };
  }

  /** Stores one batch; answers how many lines were new. */
  protected handlers(): JobHandlers<typeof QUEUES.logs> {
    return { 'run.logs': (batch) => this.store.store(batch) };
  }

  /** Times every job, parsing included. */
  override process(job: Job): Promise<unknown> {
    return this.metrics.timeJob(QUEUES.logs, () => super.process(job));
  }
}
