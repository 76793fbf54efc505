import { Queue, type ConnectionOptions } from 'bullmq';
import { Redis } from 'ioredis';
import { QUEUES, RUN_CANCEL_CHANNEL } from '@conduit/contracts';
import { queueConnectionOptions } from '@conduit/service-kit';
import { bullPrefix } from './bull-prefix.js';

export interface QueueConnectionSettings {
  redisUrl: string;
  /** The deployment's REDIS_PREFIX (`conduit:`). */
  redisPrefix: string;
}

/** The queues the scheduler writes to, and its publisher connection for cancel requests. */
export class SchedulerQueues {
  readonly prefix: string;
  readonly connection: ConnectionOptions;
  readonly runs: Queue;
  readonly eventsMonitoring: Queue;
  readonly eventsWebhooks: Queue;
  /** The ticks queue of the former design (a BullMQ job scheduler per job): only to remove what it left. */
  readonly ticks: Queue;
  private readonly publisher: Redis;
  private readonly cancelChannel: string;

  constructor(settings: QueueConnectionSettings) {
    this.prefix = bullPrefix(settings.redisPrefix);
    // BullMQ opens (and closes) its own ioredis connections from these options.
    this.connection = queueConnectionOptions(settings.redisUrl);
    const base = { connection: this.connection, prefix: this.prefix };
    this.runs = new Queue(QUEUES.runs, base);
    this.eventsMonitoring = new Queue(QUEUES.eventsMonitoring, base);
    this.eventsWebhooks = new Queue(QUEUES.eventsWebhooks, base);
    this.ticks = new Queue(QUEUES.schedulerTicks, base);
    this.publisher = new Redis(settings.redisUrl, { maxRetriesPerRequest: 2 });
    this.cancelChannel = `${settings.redisPrefix}${RUN_CANCEL_CHANNEL}`;
  }

  /** Asks the executor holding the run to stop it (Redis pub/sub: only executors listening now receive it). */
  async publishCancel(runId: string): Promise<void> {
    await this.publisher.publish(this.cancelChannel, JSON.stringify({ run_id: runId }));
  }

  async close(): Promise<void> {
    await Promise.allSettled([
      this.runs.close(),
      this.eventsMonitoring.close(),
      this.eventsWebhooks.close(),
      this.ticks.close(),
    ]);
    await this.publisher.quit().catch(() => this.publisher.disconnect());
  }
}
