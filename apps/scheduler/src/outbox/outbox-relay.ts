import { Inject, Injectable, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import type { Logger } from 'pino';
import { OutboxRelay as Relay, type OutboxRow } from '@conduit/outbox';
import { SchedulerQueues } from '../queues/scheduler-queues.js';
import { runCommandJobOptions, runEventJobOptions } from '../queues/job-options.js';
import { SCHEDULER_LOGGER, SCHEDULER_SETTINGS } from '../common/tokens.js';
import type { SchedulerSettings } from '../scheduler-settings.js';

/** The scheduler's outbox: run commands to `runs`, run events to monitoring and the webhook dispatcher. */
@Injectable()
export class OutboxRelay implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly relay: Relay;

  constructor(
    ds: DataSource,
    private readonly queues: SchedulerQueues,
    @Inject(SCHEDULER_LOGGER) logger: Logger,
    @Inject(SCHEDULER_SETTINGS) private readonly settings: SchedulerSettings,
  ) {
    this.relay = new Relay({
      dataSource: ds,
      logger,
      sweepMs: settings.outboxSweepMs,
      columns: ['kind', 'run_id'],
      publish: (m, row) => this.publish(m, row),
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

  /** Publishes every pending row; answers how many (tests call it directly). */
  drain(): Promise<number> {
    return this.relay.drain();
  }

  private async publish(m: EntityManager, row: OutboxRow): Promise<void> {
    if (row['kind'] === 'run_command') {
      // Holding the run row (FOR SHARE) orders this against a cancel: a run canceled before it was published is
      // never enqueued, and a cancel that commits after it finds the queue job to remove.
      const [run] = (await m.query(`SELECT status FROM runs WHERE id = $1 FOR SHARE`, [row['run_id']])) as {
        status: string;
      }[];
      if (run?.status !== 'queued') return;
      await this.queues.runs.add('run', row.payload, runCommandJobOptions(row.message_id));
      return;
    }
    const opts = runEventJobOptions(row.message_id);
    // add() rather than addBulk(), for jobId deduplication.
    await this.queues.eventsMonitoring.add(String(row.payload['type']), row.payload, opts);
    await this.queues.eventsWebhooks.add(String(row.payload['type']), row.payload, opts);
  }
}
