import { Queue, type ConnectionOptions } from 'bullmq';
import { QUEUES, type QueueName } from '@conduit/contracts';
import { queueConnectionOptions } from '@conduit/service-kit';
import { bullPrefix } from './bull-prefix.js';

export interface QueueConnectionSettings {
  redisUrl: string;
  /** The deployment's REDIS_PREFIX (`conduit:`). */
  redisPrefix: string;
}

/**
 * Handles on every queue of the deployment: monitoring publishes alert events to `events.webhooks`, and reports the
 * depth of all of them on /metrics.
 */
export class MonitoringQueues {
  readonly prefix: string;
  readonly connection: ConnectionOptions;
  readonly byName: ReadonlyMap<QueueName, Queue>;

  constructor(settings: QueueConnectionSettings) {
    this.prefix = bullPrefix(settings.redisPrefix);
    // BullMQ opens (and closes) its own ioredis connections from these options.
    this.connection = queueConnectionOptions(settings.redisUrl);
    const base = { connection: this.connection, prefix: this.prefix };
    this.byName = new Map(Object.values(QUEUES).map((name) => [name, new Queue(name, base)]));
  }

  get eventsWebhooks(): Queue {
    return this.byName.get(QUEUES.eventsWebhooks)!;
  }

  async close(): Promise<void> {
    await Promise.allSettled([...this.byName.values()].map((q) => q.close()));
  }
}
