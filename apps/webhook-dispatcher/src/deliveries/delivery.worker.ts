import { Inject, Injectable } from '@nestjs/common';
import type { Job } from 'bullmq';
import type { Logger } from 'pino';
import { QUEUES } from '@conduit/contracts';
import { JobConsumer, QueueWorkers, type ConsumerOptions, type JobHandlers } from '@conduit/service-kit';
import { AttemptRunner } from './attempt-runner.js';
import { DISPATCHER_LOGGER, DISPATCHER_SETTINGS } from '../common/tokens.js';
import type { DispatcherSettings } from '../dispatcher-settings.js';

/** Consumes `webhook-deliveries`: each job is one attempt, sent by the AttemptRunner. */
@Injectable()
export class DeliveryWorker extends JobConsumer<typeof QUEUES.webhookDeliveries> {
  constructor(
    workers: QueueWorkers,
    private readonly runner: AttemptRunner,
    @Inject(DISPATCHER_LOGGER) logger: Logger,
    @Inject(DISPATCHER_SETTINGS) private readonly settings: DispatcherSettings,
  ) {
    super(QUEUES.webhookDeliveries, workers, logger);
  }

  protected consumerOptions(): ConsumerOptions {
    return {
      enabled: this.settings.background.deliveries,
      concurrency: this.settings.deliveryConcurrency,
      // An attempt may wait up to the timeout on a receiver: keep the lock well past it.
      lockDuration: Math.max(30_000, this.settings.timeoutMs * 3),
    };
  }

  protected handlers(): JobHandlers<typeof QUEUES.webhookDeliveries> {
    return { deliver: (job) => this.runner.run(job.delivery_id) };
  }

  protected override onJobFailed(job: Job | undefined, err: Error): void {
    const deliveryId = (job?.data as { delivery_id?: unknown } | undefined)?.delivery_id;
    this.logger.warn({ err, delivery_id: deliveryId }, 'delivery job failed; BullMQ or the sweep retries it');
  }
}
