import { Inject, Injectable, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { Logger } from 'pino';
import { DispatcherQueues } from '../queues/dispatcher-queues.js';
import { monitoringEventJobOptions } from '../queues/job-options.js';
import { DISPATCHER_LOGGER, DISPATCHER_SETTINGS } from '../common/tokens.js';
import type { DispatcherSettings } from '../dispatcher-settings.js';

const BATCH = 100;
/** Published rows are kept this long (for inspection), then deleted. */
const KEEP_PUBLISHED_MS = 60 * 60 * 1000;

/**
 * Publishes outbox rows (webhook.disabled events) to `events.monitoring` in id order and marks them published.
 * Woken right after a commit and by a periodic sweep that also picks up what a crashed process left behind. Rows
 * are taken FOR UPDATE SKIP LOCKED so replicas share the work; a row published twice is absorbed by BullMQ's
 * job-id dedupe.
 */
@Injectable()
export class OutboxRelay implements OnApplicationBootstrap, OnModuleDestroy {
  private timer: NodeJS.Timeout | null = null;
  private draining: Promise<unknown> | null = null;
  private again = false;
  private stopped = false;

  constructor(
    private readonly ds: DataSource,
    private readonly queues: DispatcherQueues,
    @Inject(DISPATCHER_LOGGER) private readonly logger: Logger,
    @Inject(DISPATCHER_SETTINGS) private readonly settings: DispatcherSettings,
  ) {}

  onApplicationBootstrap(): void {
    if (!this.settings.background.relay) return;
    this.timer = setInterval(() => this.wake(), this.settings.sweepMs);
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

  /** Publishes every pending row; answers how many. */
  async drain(): Promise<number> {
    let total = 0;
    for (;;) {
      const n = await this.publishBatch();
      total += n;
      if (n < BATCH || this.stopped) break;
    }
    if (total === 0) await this.ds.query(`DELETE FROM outbox WHERE published_at < $1`, [new Date(Date.now() - KEEP_PUBLISHED_MS)]);
    return total;
  }

  private async publishBatch(): Promise<number> {
    return this.ds.transaction(async (m) => {
      const rows = (await m.query(
        `SELECT id, message_id, payload FROM outbox WHERE published_at IS NULL ORDER BY id LIMIT ${BATCH} FOR UPDATE SKIP LOCKED`,
      )) as { id: string; message_id: string; payload: Record<string, unknown> }[];
      for (const row of rows) {
        // add() rather than addBulk(), for jobId deduplication.
        await this.queues.eventsMonitoring.add(String(row.payload['type']), row.payload, monitoringEventJobOptions(row.message_id));
      }
      if (rows.length > 0) await m.query(`UPDATE outbox SET published_at = now() WHERE id = ANY($1::bigint[])`, [rows.map((r) => r.id)]);
      return rows.length;
    });
  }
}
