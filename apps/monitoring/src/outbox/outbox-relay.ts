import { Inject, Injectable, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { JobsOptions } from 'bullmq';
import type { Logger } from 'pino';
import { MonitoringQueues } from '../queues/monitoring-queues.js';
import { MONITORING_LOGGER, MONITORING_SETTINGS } from '../common/tokens.js';
import type { MonitoringSettings } from '../monitoring-settings.js';

const BATCH = 100;
const HOUR_S = 3600;
/** Published rows are kept this long (for inspection), then deleted by the sweep. */
const KEEP_PUBLISHED_MS = HOUR_S * 1000;

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

interface OutboxRow {
  id: string;
  message_id: string;
  payload: { type?: unknown } & Record<string, unknown>;
}

/**
 * Publishes outbox rows to `events.webhooks` in id order and marks them published. Woken in-process after a
 * commit, and by a periodic sweep that also picks up what a crashed process committed but never published. Rows
 * are taken FOR UPDATE SKIP LOCKED so replicas share the work; one published twice is absorbed by BullMQ's job-id
 * dedupe.
 */
@Injectable()
export class OutboxRelay implements OnApplicationBootstrap, OnModuleDestroy {
  private timer: NodeJS.Timeout | null = null;
  private draining: Promise<unknown> | null = null;
  private again = false;
  private stopped = false;

  constructor(
    private readonly ds: DataSource,
    private readonly queues: MonitoringQueues,
    @Inject(MONITORING_LOGGER) private readonly logger: Logger,
    @Inject(MONITORING_SETTINGS) private readonly settings: MonitoringSettings,
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

  /** Publishes every pending row; answers how many were published. */
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
      )) as OutboxRow[];
      for (const row of rows) {
        // add() rather than addBulk(), for jobId deduplication.
        await this.queues.eventsWebhooks.add(String(row.payload.type), row.payload, alertEventJobOptions(row.message_id));
      }
      if (rows.length > 0) {
        await m.query(`UPDATE outbox SET published_at = $1 WHERE id = ANY($2::bigint[])`, [new Date(), rows.map((r) => r.id)]);
      }
      return rows.length;
    });
  }
}
