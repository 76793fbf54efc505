import { Inject, Injectable, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { Worker, type Job } from 'bullmq';
import { DataSource } from 'typeorm';
import type { Logger } from 'pino';
import { QUEUES, runLogBatchSchema } from '@conduit/contracts';
import { splitJobTrace } from '@conduit/service-kit';
import { insertRunLogBatch } from './run-log-writer.js';
import { MonitoringQueues } from '../queues/monitoring-queues.js';
import { MonitoringMetrics } from '../telemetry/monitoring-metrics.js';
import { MONITORING_LOGGER, MONITORING_SETTINGS } from '../common/tokens.js';
import type { MonitoringSettings } from '../monitoring-settings.js';

/** Consumes `logs`: batches of run log lines from the executors. */
@Injectable()
export class RunLogsWorker implements OnApplicationBootstrap, OnModuleDestroy {
  private worker: Worker | null = null;

  constructor(
    private readonly ds: DataSource,
    private readonly queues: MonitoringQueues,
    private readonly metrics: MonitoringMetrics,
    @Inject(MONITORING_LOGGER) private readonly logger: Logger,
    @Inject(MONITORING_SETTINGS) private readonly settings: MonitoringSettings,
  ) {}

  onApplicationBootstrap(): void {
    if (!this.settings.background.logs) return;
    this.worker = new Worker(QUEUES.logs, (job) => this.metrics.timeJob(QUEUES.logs, () => this.handle(job)), {
      connection: this.queues.connection,
      prefix: this.queues.prefix,
      concurrency: 4,
    });
    this.worker.on('error', (err) => this.logger.warn({ err }, 'logs worker error'));
  }

  async onModuleDestroy(): Promise<void> {
    await this.worker?.close();
  }

  /** Stores one batch; answers how many lines were new, or 'malformed' for a batch dropped as unusable. */
  async handle(job: Pick<Job, 'id' | 'data'>): Promise<number | 'malformed'> {
    // Without the trace field a producer may add (job-trace.ts): a batch of log lines makes no span of its own.
    const parsed = runLogBatchSchema.safeParse(splitJobTrace(job.data).payload);
    if (!parsed.success) {
      this.logger.error({ job_id: job.id, issues: parsed.error.issues.slice(0, 5) }, 'malformed run log batch dropped');
      return 'malformed';
    }
    return insertRunLogBatch(this.ds.manager, parsed.data);
  }
}
