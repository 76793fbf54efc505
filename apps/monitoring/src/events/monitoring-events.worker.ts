import { Inject, Injectable } from '@nestjs/common';
import type { Job } from 'bullmq';
import type { Logger } from 'pino';
import { QUEUES, type MonitoringEvent } from '@conduit/contracts';
import { JobConsumer, QueueWorkers, type ConsumerOptions, type JobHandlers } from '@conduit/service-kit';
import { MAX_EVENT_BATCH, MonitoringEvents } from './monitoring-events.js';
import { MonitoringMetrics } from '../telemetry/monitoring-metrics.js';
import { MONITORING_LOGGER, MONITORING_SETTINGS } from '../common/tokens.js';
import type { MonitoringSettings } from '../monitoring-settings.js';

/** Consumes `events.monitoring`: run events from the scheduler, webhook.disabled and webhook.enabled from the dispatcher. */
@Injectable()
export class MonitoringEventsWorker extends JobConsumer<typeof QUEUES.eventsMonitoring> {
  constructor(
    workers: QueueWorkers,
    private readonly events: MonitoringEvents,
    private readonly metrics: MonitoringMetrics,
    @Inject(MONITORING_LOGGER) logger: Logger,
    @Inject(MONITORING_SETTINGS) private readonly settings: MonitoringSettings,
  ) {
    super(QUEUES.eventsMonitoring, workers, logger);
  }

  protected consumerOptions(): ConsumerOptions {
    // Each event waits only for its batch's transaction: taking a batch's worth of jobs at once lets a burst be
    // applied in full batches.
    return { enabled: this.settings.background.events, concurrency: MAX_EVENT_BATCH };
  }

  protected handlers(): JobHandlers<typeof QUEUES.eventsMonitoring> {
    const apply = (event: MonitoringEvent) => this.events.apply(event);
    return {
      'run.queued': apply,
      'run.started': apply,
      'run.succeeded': apply,
      'run.failed': apply,
      'run.canceled': apply,
      'webhook.disabled': apply,
      'webhook.enabled': apply,
    };
  }

  /** Times every job, parsing included. */
  override process(job: Job): Promise<unknown> {
    return this.metrics.timeJob(QUEUES.eventsMonitoring, () => super.process(job));
  }
}
