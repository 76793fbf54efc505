import { Inject, Injectable, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { Worker } from 'bullmq';
import type { Logger } from 'pino';
import { QUEUES } from '@conduit/contracts';
import { AttemptRunner } from './attempt-runner.js';
import { DispatcherQueues } from '../queues/dispatcher-queues.js';
import type { DeliveryJobData } from '../queues/job-options.js';
import { DISPATCHER_LOGGER, DISPATCHER_SETTINGS } from '../common/tokens.js';
import type { DispatcherSettings } from '../dispatcher-settings.js';

/** Consumes `webhook-deliveries`: each job is one attempt, sent by the AttemptRunner. */
@Injectable()
export class DeliveryWorker implements OnApplicationBootstrap, OnModuleDestroy {
  private worker: Worker<DeliveryJobData> | null = null;

  constructor(
    private readonly runner: AttemptRunner,
    private readonly queues: DispatcherQueues,
    @Inject(DISPATCHER_LOGGER) private readonly logger: Logger,
    @Inject(DISPATCHER_SETTINGS) private readonly settings: DispatcherSettings,
  ) {}

  onApplicationBootstrap(): void {
    if (!this.settings.background.deliveries) return;
    this.worker = new Worker<DeliveryJobData>(
      QUEUES.webhookDeliveries,
      (job) => this.runner.run(job.data.delivery_id),
      {
        connection: this.queues.connection,
        prefix: this.queues.prefix,
        concurrency: this.settings.deliveryConcurrency,
        // An attempt may wait up to the timeout on a receiver: keep the lock well past it.
        lockDuration: Math.max(30_000, this.settings.timeoutMs * 3),
      },
    );
    this.worker.on('error', (err) => this.logger.warn({ err }, 'webhook-deliveries worker error'));
    this.worker.on('failed', (job, err) =>
      this.logger.warn(
        { err, delivery_id: job?.data.delivery_id },
        'delivery job failed; BullMQ or the sweep retries it',
      ),
    );
  }

  async onModuleDestroy(): Promise<void> {
    await this.worker?.close();
  }
}
