import { Queue, type ConnectionOptions } from 'bullmq';
import { QUEUES } from '@conduit/contracts';
import { queueConnectionOptions } from '@conduit/service-kit';
import { bullPrefix } from './bull-prefix.js';
import { deliveryJobOptions, type DeliveryJobData } from './job-options.js';

export interface QueueConnectionSettings {
  redisUrl: string;
  /** The deployment's REDIS_PREFIX (`conduit:`). */
  redisPrefix: string;
}

/** The queues the dispatcher writes to: its own delivery attempts, and monitoring's events. */
export class DispatcherQueues {
  readonly prefix: string;
  readonly connection: ConnectionOptions;
  readonly deliveries: Queue<DeliveryJobData>;
  readonly eventsMonitoring: Queue;

  constructor(settings: QueueConnectionSettings) {
    this.prefix = bullPrefix(settings.redisPrefix);
    // BullMQ opens (and closes) its own ioredis connections from these options.
    this.connection = queueConnectionOptions(settings.redisUrl);
    const base = { connection: this.connection, prefix: this.prefix };
    this.deliveries = new Queue<DeliveryJobData>(QUEUES.webhookDeliveries, base);
    this.eventsMonitoring = new Queue(QUEUES.eventsMonitoring, base);
  }

  /** Enqueues attempts, each to run after its delay; an id already queued is left as it is (BullMQ dedupes on it). */
  async enqueueDeliveries(attempts: { id: string; delayMs: number }[]): Promise<void> {
    if (attempts.length === 0) return;
    await this.deliveries.addBulk(
      attempts.map((a) => ({
        name: 'deliver',
        data: { delivery_id: a.id },
        opts: deliveryJobOptions(a.id, a.delayMs),
      })),
    );
  }

  async close(): Promise<void> {
    await Promise.allSettled([this.deliveries.close(), this.eventsMonitoring.close()]);
  }
}
