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
  /** How often a pass that found nothing deletes the published rows past keepPublishedMs. Default: one minute. */
  pruneEveryMs?: number;
}

/** An extra column's name: it goes into the SQL as it is. */
const COLUMN = /^[a-z_][a-z0-9_]*$/;

/**
 * Publishes outbox rows in id order and marks them published. Woken in-process right after a commit, and by a
 * periodic sweep. Rows are taken FOR UPDATE SKIP LOCKED so replicas share the work; were one published twice, the
 * queue's job-id dedupe absorbs it.
 */
export class OutboxRelay {
  private timer: NodeJS.Timeout | null = null;
  /** A wake asked for within a while (wakeWithin); any wake before it takes its place. */
  private soon: NodeJS.Timeout | null = null;
  private draining: Promise<unknown> | null = null;
  private again = false;
  private stopped = false;
  private readonly batch: number;
  private readonly keepPublishedMs: number;
  private readonly pruneEveryMs: number;
  private prunedAt = 0;
  /** The turn's first round trip: begin, then take and mark the oldest pending rows (BEGIN and one UPDATE). */
  private readonly takeSql: string;

  constructor(private readonly opts: OutboxRelayOptions) {
    this.batch = opts.batch ?? 100;
    this.keepPublishedMs = opts.keepPublishedMs ?? 60 * 60 * 1000;
    this.pruneEveryMs = opts.pruneEveryMs ?? 60 * 1000;
    const columns = ['id', 'message_id', 'payload', ...(opts.columns ?? [])];
    for (const column of columns) if (!COLUMN.test(column)) throw new Error(`outbox: "${column}" is not a column name`);
    if (!Number.isInteger(this.batch) || this.batch < 1) throw new Error('outbox: batch must be a positive integer');
    // The CTE takes the rows once (a locking CTE is never inlined, so its LIMIT cannot be evaluated twice).
    this.takeSql = `BEGIN; WITH taken AS (
        SELECT id FROM outbox WHERE published_at IS NULL ORDER BY id LIMIT ${this.batch} FOR UPDATE SKIP LOCKED)
      UPDATE outbox o SET published_at = now() FROM taken WHERE o.id = taken.id
      RETURNING ${columns.map((c) => `o.${c}`).join(', ')}`;
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
    if (this.soon) clearTimeout(this.soon);
    await this.draining?.catch(() => undefined);
  }

  /** Publishes what is pending now; concurrent wakes coalesce into one more pass. */
  wake(): void {
    if (this.stopped) return;
    // This pass (or the one after the pass under way) takes every row committed before this call.
    if (this.soon) clearTimeout(this.soon);
    this.soon = null;
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

  /**
   * Publishes what is pending within `ms`, or with the next wake if sooner: for rows whose consumers want them soon
   * but not at once, so that they leave in one turn with the rows committed after them.
   */
  wakeWithin(ms: number): void {
    if (this.stopped || this.soon) return;
    this.soon = setTimeout(() => this.wake(), ms);
    this.soon.unref();
  }

  /** Publishes every pending row; answers how many. */
  async drain(): Promise<number> {
    let total = 0;
    for (;;) {
      const n = await this.publishBatch();
      total += n;
      if (n < this.batch || this.stopped) break;
    }
    if (total === 0 && Date.now() - this.prunedAt >= this.pruneEveryMs) {
      this.prunedAt = Date.now();
      await this.opts.dataSource.query(`DELETE FROM outbox WHERE published_at < $1`, [
        new Date(Date.now() - this.keepPublishedMs),
      ]);
    }
    return total;
  }

  /**
   * One turn in two round trips (three when `publish` reads): `BEGIN` and the UPDATE that takes and marks the rows go
   * as one simple query (it has no parameters), then the publish, then `COMMIT`. The mark is undone by a rollback when
   * the publish fails, and another relay skips the rows while they are held, as it did with SELECT ... FOR UPDATE.
   */
  private async publishBatch(): Promise<number> {
    const runner = this.opts.dataSource.createQueryRunner();
    const client = (await runner.connect()) as SimpleQueryClient;
    try {
      const results = await client.query(this.takeSql);
      const rows = results[1]?.rows ?? [];
      if (rows.length > 0) {
        rows.sort(byId);
        await this.opts.publish(runner.manager, rows);
      }
      await client.query('COMMIT');
      return rows.length;
    } catch (err) {
      // As TypeORM's own transactions do: a connection that broke is dropped by the pool on its error event.
      await client.query('ROLLBACK').catch(() => undefined);
      throw err;
    } finally {
      await runner.release();
    }
  }
}

/** The pg client of a query runner: a query string of several statements answers one result each. */
interface SimpleQueryClient {
  query(sql: string): Promise<{ rows: OutboxRow[] }[]>;
}

/** Outbox ids are bigints as text: shorter is smaller, then by characters. */
function byId(a: OutboxRow, b: OutboxRow): number {
  return a.id.length - b.id.length || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}
