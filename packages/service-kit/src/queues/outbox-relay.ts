import { Inject, Injectable, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import type { Logger } from 'pino';
import { OutboxRelay as Relay, type OutboxRow } from '@conduit/outbox';
import { QueueProducers } from './queue-producer.js';
import { QUEUES_LOGGER, QUEUES_OUTBOX } from './queue-tokens.js';

/** A service's outbox: what QueuesModule.forRoot's `outbox` says. */
export interface OutboxOptions {
  /** Whether this process relays (services switch background work off in some tests). */
  enabled: boolean;
  /** How often the sweep runs; it picks up what a crashed process committed but never published. */
  sweepMs: number;
  /** Extra outbox columns `publish` reads. Default: none. */
  columns?: readonly string[];
  /** Sends one row to its queue(s) inside the relay's transaction (so it may lock rows the message is about). */
  publish(row: OutboxRow, producers: QueueProducers, manager: EntityManager): Promise<void>;
}

/**
 * The outbox relay of packages/outbox as the one provider of every service with an outbox: started at bootstrap
 * when enabled, woken right after a commit, stopped before the queues close.
 */
@Injectable()
export class OutboxRelay implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly relay: Relay;

  constructor(
    ds: DataSource,
    producers: QueueProducers,
    @Inject(QUEUES_LOGGER) logger: Logger,
    @Inject(QUEUES_OUTBOX) private readonly opts: OutboxOptions,
  ) {
    this.relay = new Relay({
      dataSource: ds,
      logger,
      sweepMs: opts.sweepMs,
      ...(opts.columns ? { columns: opts.columns } : {}),
      publish: (manager, row) => opts.publish(row, producers, manager),
    });
  }

  onApplicationBootstrap(): void {
    if (this.opts.enabled) this.relay.start();
  }

  onModuleDestroy(): Promise<void> {
    return this.relay.stop();
  }

  /** Publishes what is pending now (called right after a commit). */
  wake(): void {
    if (this.opts.enabled) this.relay.wake();
  }

  /** Publishes every pending row; answers how many (tests call it directly). */
  drain(): Promise<number> {
    return this.relay.drain();
  }
}
