import { Inject, Injectable, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import type { Logger } from 'pino';
import { OutboxMessageEntity } from './outbox-message.entity.js';
import { SchedulerQueues } from '../queues/scheduler-queues.js';
import { runCommandJobOptions, runEventJobOptions } from '../queues/job-options.js';
import { SCHEDULER_LOGGER, SCHEDULER_SETTINGS } from '../common/tokens.js';
import type { SchedulerSettings } from '../scheduler-settings.js';

const BATCH = 100;
/** Published rows are kept this long (for inspection), then deleted by the sweep. */
const KEEP_PUBLISHED_MS = 60 * 60 * 1000;

/**
 * Publishes outbox rows to BullMQ in id order and marks them published. Woken in-process right after a commit,
 * and by a periodic sweep that also picks up what a crashed process committed but never published. Rows are taken
 * FOR UPDATE SKIP LOCKED so replicas share the work; were one published twice, BullMQ's job-id dedupe absorbs it.
 */
@Injectable()
export class OutboxRelay implements OnApplicationBootstrap, OnModuleDestroy {
  private timer: NodeJS.Timeout | null = null;
  private draining: Promise<unknown> | null = null;
  private again = false;
  private stopped = false;

  constructor(
    private readonly ds: DataSource,
    private readonly queues: SchedulerQueues,
    @Inject(SCHEDULER_LOGGER) private readonly logger: Logger,
    @Inject(SCHEDULER_SETTINGS) private readonly settings: SchedulerSettings,
  ) {}

  onApplicationBootstrap(): void {
    if (!this.settings.background.relay) return;
    this.timer = setInterval(() => this.wake(), this.settings.outboxSweepMs);
    this.timer.unref();
    this.wake();
  }

  async onModuleDestroy(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    await this.draining?.catch(() => undefined);
  }

  /** Publishes what is pending now; concurrent wakes coalesce into one more pass. */
  wake(): void {
    if (this.stopped || !this.settings.background.relay) return;
    if (this.draining) {
      this.again = true;
      return;
    }
    this.draining = this.drain()
      .catch((err: unknown) => this.logger.warn({ err }, 'outbox relay pass failed; the sweep retries'))
      .finally(() => {
        this.draining = null;
        if (this.again && !this.stopped) {
          this.again = false;
          this.wake();
        }
      });
  }

  /** Publishes every pending row (the relay's whole job; tests call it directly). Answers how many were published. */
  async drain(): Promise<number> {
    let total = 0;
    for (;;) {
      const n = await this.publishBatch();
      total += n;
      if (n < BATCH || this.stopped) break;
    }
    if (total === 0) await this.prune();
    return total;
  }

  private async publishBatch(): Promise<number> {
    return this.ds.transaction(async (m) => {
      const rows = await m
        .createQueryBuilder(OutboxMessageEntity, 'o')
        .where('o.published_at IS NULL')
        .orderBy('o.id', 'ASC')
        .limit(BATCH)
        .setLock('pessimistic_write')
        .setOnLocked('skip_locked')
        .getMany();
      for (const row of rows) await this.publish(m, row);
      if (rows.length > 0) {
        await m.update(OutboxMessageEntity, rows.map((r) => r.id), { publishedAt: new Date() });
      }
      return rows.length;
    });
  }

  private async publish(m: EntityManager, row: OutboxMessageEntity): Promise<void> {
    if (row.kind === 'run_command') {
      // Holding the run row (FOR SHARE) orders this against a cancel: a run canceled before it was published is
      // never enqueued, and a cancel that commits after it finds the queue job to remove.
      const [run] = (await m.query(`SELECT status FROM runs WHERE id = $1 FOR SHARE`, [row.runId])) as { status: string }[];
      if (run?.status !== 'queued') return;
      await this.queues.runs.add('run', row.payload, runCommandJobOptions(row.messageId));
      return;
    }
    const opts = runEventJobOptions(row.messageId);
    // add() rather than addBulk(), for jobId deduplication.
    await this.queues.eventsMonitoring.add(String(row.payload['type']), row.payload, opts);
    await this.queues.eventsWebhooks.add(String(row.payload['type']), row.payload, opts);
  }

  private async prune(): Promise<void> {
    await this.ds.query(`DELETE FROM outbox WHERE published_at < $1`, [new Date(Date.now() - KEEP_PUBLISHED_MS)]);
  }
}
