import { Inject, Injectable, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { Worker, type Job } from 'bullmq';
import type { Logger } from 'pino';
import { QUEUES, monitoringEventSchema } from '@conduit/contracts';
import { SpanKind, inSpan, splitJobTrace } from '@conduit/service-kit';
import { MonitoringEvents, type EventOutcome } from './monitoring-events.js';
import { MonitoringQueues } from '../queues/monitoring-queues.js';
import { MonitoringMetrics } from '../telemetry/monitoring-metrics.js';
import { MONITORING_LOGGER, MONITORING_SETTINGS } from '../common/tokens.js';
import type { MonitoringSettings } from '../monitoring-settings.js';

/** Consumes `events.monitoring`: run events from the scheduler, webhook.disabled and webhook.enabled from the dispatcher. */
@Injectable()
export class MonitoringEventsWorker implements OnApplicationBootstrap, OnModuleDestroy {
  private worker: Worker | null = null;

  constructor(
    private readonly events: MonitoringEvents,
    private readonly queues: MonitoringQueues,
    private readonly metrics: MonitoringMetrics,
    @Inject(MONITORING_LOGGER) private readonly logger: Logger,
    @Inject(MONITORING_SETTINGS) private readonly settings: MonitoringSettings,
  ) {}

  onApplicationBootstrap(): void {
    if (!this.settings.background.events) return;
    this.worker = new Worker(
      QUEUES.eventsMonitoring,
      (job) => this.metrics.timeJob(QUEUES.eventsMonitoring, () => this.handle(job)),
      {
        connection: this.queues.connection,
        prefix: this.queues.prefix,
        concurrency: 8,
      },
    );
    this.worker.on('error', (err) => this.logger.warn({ err }, 'events.monitoring worker error'));
  }

  async onModuleDestroy(): Promise<void> {
    await this.worker?.close();
  }

  /** Applies one event, in a span that continues the trace it was sent under (the run's). */
  handle(job: Pick<Job, 'id' | 'data'>): Promise<EventOutcome | 'malformed'> {
    const { payload, parent } = splitJobTrace(job.data);
    return inSpan(`job ${QUEUES.eventsMonitoring}`, SpanKind.CONSUMER, parent, () => this.apply(job.id, payload));
  }

  /** A malformed event is logged and dropped: retrying cannot fix it. */
  private async apply(jobId: string | undefined, data: unknown): Promise<EventOutcome | 'malformed'> {
    const parsed = monitoringEventSchema.safeParse(data);
    if (!parsed.success) {
      this.logger.error(
        { job_id: jobId, issues: parsed.error.issues.slice(0, 5) },
        'malformed monitoring event dropped',
      );
      return 'malformed';
    }
    return this.events.apply(parsed.data);
  }
}
