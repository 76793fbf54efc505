import { Inject, Injectable, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { Logger } from 'pino';
import { OutboxRelay as Relay, type OutboxRow } from '@conduit/outbox';
import { monitoringEventJobOptions } from '../queues/job-options.js';
import { DispatcherQueues } from '../queues/dispatcher-queues.js';
import { DISPATCHER_LOGGER, DISPATCHER_SETTINGS } from '../common/tokens.js';
import type { DispatcherSettings } from '../dispatcher-settings.js';

/** The dispatcher outbox: webhook.disabled events to monitoring. */
@Injectable()
export class OutboxRelay implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly relay: Relay;

  constructor(
    ds: DataSource,
    private readonly queues: DispatcherQueues,
    @Inject(DISPATCHER_LOGGER) logger: Logger,
    @Inject(DISPATCHER_SETTINGS) private readonly settings: DispatcherSettings,
  ) {
    this.relay = new Relay({
      dataSource: ds,
      logger,
      sweepMs: settings.sweepMs,
      publish: (_m, row) => this.publish(row),
    });
  }

  onApplicationBootstrap(): void {
    if (this.settings.background.relay) this.relay.start();
  }

  onModuleDestroy(): Promise<void> {
    return this.relay.stop();
  }

  /** Publishes what is pending now (called right after a commit). */
  wake(): void {
    if (this.settings.background.relay) this.relay.wake();
  }

  /** Publishes every pending row; answers how many. */
  drain(): Promise<number> {
    return this.relay.drain();
  }

  private async publish(row: OutboxRow): Promise<void> {
    // add() rather than addBulk(), for jobId deduplication.
    await this.queues.eventsMonitoring.add(
      String(row.payload['type']),
      row.payload,
      monitoringEventJobOptions(row.message_id),
    );
  }
}
