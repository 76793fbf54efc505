import type { DataSource, EntityManager } from 'typeorm';
import type { Logger } from 'pino';

/** A pending outbox row as the relay hands it to `publish`. */
export interface OutboxRow {
  id: string;
  message_id: string;
  payload: Record<string, unknown>;
  [column: string]: unknown;
}

export interface OutboxRelayOptions {
  dataSource: DataSource;
  logger: Logger;
  /** How often the sweep runs; it picks up what a crashed process committed but never published. */
  sweepMs: number;
  /**
   * Sends one turn's rows, in id order, to their queue(s), inside the relay's transaction (so it may lock rows the
   * messages are about). The rows are marked published only once it resolves; if it throws, none of them are, and the
   * next turn sends them again (the queues' job-id dedupe absorbs what this one had already added).
   */
  publish(manager: EntityManager, rows: OutboxRow[]): Promise<void>;
  /** Extra columns `publish` needs. Default: none. */
  columns?: readonly string[];
  /** Rows per transaction. Default: 100. */
  batch?: number;
  /** Published rows are kept this long, for inspection, then deleted. Default: one hour. */
  keepPublishedMs?: number;
}

/**
 * Publishes outbox rows in id order and marks them published. Woken in-process right after a commit, and by a
 * periodic sweep. Rows are taken FOR UPDATE SKIP LOCKED so replicas share the work; were one published twice, the
 * queue's job-id dedupe absorbs it.
 */
export class OutboxRelay {
  private timer: NodeJS.Timeout | null = null;
  private draining: Promise<unknown> | null = null;
  private again = false;
  private stopped = false;
  private readonly batch: number;
  private readonly keepPublishedMs: number;
  private readonly selectColumns: string;

  constructor(private readonly opts: OutboxRelayOptions) {
    this.batch = opts.batch ?? 100;
    this.keepPublishedMs = opts.keepPublishedMs ?? 60 * 60 * 1000;
    this.selectColumns = ['id', 'message_id', 'payload', ...(opts.columns ?? [])].join(', ');
  }

  /** Starts the sweep and publishes what is pending now. */
  start(): void {
    this.timer = setInterval(() => this.wake(), this.opts.sweepMs);
    this.timer.unref();
    this.wake();
  }

  /** Stops the sweep and waits for a pass under way. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    await this.draining?.catch(() => undefined);
  }

  /** Publishes what is pending now; concurrent wakes coalesce into one more pass. */
  wake(): void {
    if (this.stopped) return;
    if (this.draining) {
      this.again = true;
      return;
    }
    this.draining = this.drain()
      .catch((err: unknown) => this.opts.logger.warn({ err }, 'outbox relay pass failed; the sweep retries'))
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
      if (n < this.batch || this.stopped) break;
    }
    if (total === 0) {
      await this.opts.dataSource.query(`DELETE FROM outbox WHERE published_at < $1`, [
        new Date(Date.now() - this.keepPublishedMs),
      ]);
    }
    return total;
  }

  private async publishBatch(): Promise<number> {
    return this.opts.dataSource.transaction(async (m) => {
      const rows = await m.query<OutboxRow[]>(
        `SELECT ${this.selectColumns} FROM outbox WHERE published_at IS NULL ORDER BY id LIMIT ${this.batch} FOR UPDATE SKIP LOCKED`,
      );
      if (rows.length === 0) return 0;
      await this.opts.publish(m, rows);
      await m.query(`UPDATE outbox SET published_at = now() WHERE id = ANY($1::bigint[])`, [rows.map((r) => r.id)]);
      return rows.length;
    });
  }
}
