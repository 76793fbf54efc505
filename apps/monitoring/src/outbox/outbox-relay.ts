import { Inject, Injectable, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { Logger } from 'pino';
import { OutboxRelay as Relay, type OutboxRow } from '@conduit/outbox';
import type { JobsOptions } from 'bullmq';
import { MonitoringQueues } from '../queues/monitoring-queues.js';
import { MONITORING_LOGGER, MONITORING_SETTINGS } from '../common/tokens.js';
import type { MonitoringSettings } from '../monitoring-settings.js';

const HOUR_S = 3600;

/** An alert event on `events.webhooks` (job id = event id); the dispatcher retries with backoff. */
function alertEventJobOptions(eventId: string): JobsOptions {
  return {
    jobId: eventId,
    attempts: 8,
    backoff: { type: 'exponential', delay: 1000 },
    removeOnComplete: { age: HOUR_S, count: 10_000 },
    removeOnFail: { age: 7 * 24 * HOUR_S, count: 10_000 },
  };
}

/** The monitoring outbox: alert events to the webhook dispatcher. */
@Injectable()
export class OutboxRelay implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly relay: Relay;

  constructor(
    ds: DataSource,
    private readonly queues: MonitoringQueues,
    @Inject(MONITORING_LOGGER) logger: Logger,
    @Inject(MONITORING_SETTINGS) private readonly settings: MonitoringSettings,
  ) {
    this.relay = new Relay({
      dataSource: ds,
      logger,
      sweepMs: settings.outboxSweepMs,
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
    await this.queues.eventsWebhooks.add(
      String(row.payload['type']),
      row.payload,
      alertEventJobOptions(row.message_id),
    );
  }
}
