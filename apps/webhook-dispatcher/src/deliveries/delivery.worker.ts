import { randomInt } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { DelayedError, type Job } from 'bullmq';
import type { Logger } from 'pino';
import { QUEUES, type DeliveryJob } from '@conduit/contracts';
import { JobConsumer, QueueWorkers, type ConsumerOptions, type JobHandlers } from '@conduit/service-kit';
import { AttemptRunner } from './attempt-runner.js';
import { DISPATCHER_LOGGER, DISPATCHER_SETTINGS } from '../common/tokens.js';
import type { DispatcherSettings } from '../dispatcher-settings.js';

/** How long an attempt of a tenant past its share of the worker waits before it is taken again (plus up to half). */
export const TENANT_WAIT_MS = 1000;

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
    return { deliver: (data, job, token) => this.deliver(data, job, token) };
  }

  /**
   * Sends the attempt when its tenant may have a slot of the worker (AttemptRunner.takeQueueSlot); else the job waits
   * TENANT_WAIT_MS in the queue, untouched in the database, and is taken again then (BullMQ's delayed job, same id).
   */
  private async deliver(data: DeliveryJob, job: Job, token: string | undefined): Promise<unknown> {
    if (data.tenant_id === undefined) return this.runner.run(data.delivery_id);
    const release = this.runner.takeQueueSlot(data.tenant_id);
    if (!release) {
      if (token === undefined) throw new Error('a delivery job without its lock token cannot wait');
      await job.moveToDelayed(Date.now() + TENANT_WAIT_MS + randomInt(TENANT_WAIT_MS / 2), token);
      throw new DelayedError();
    }
    try {
      return await this.runner.run(data.delivery_id);
    } finally {
      release();
    }
  }

  protected override onJobFailed(job: Job | undefined, err: Error): void {
    const deliveryId = (job?.data as { delivery_id?: unknown } | undefined)?.delivery_id;
    this.logger.warn({ err, delivery_id: deliveryId }, 'delivery job failed; BullMQ or the sweep retries it');
  }
}
