import type { DataSource } from 'typeorm';

/** One succeeded attempt to record. */
export interface SuccessRecord {
  id: string;
  statusCode: number | null;
  latencyMs: number;
  finishedAt: Date;
}

interface Pending {
  record: SuccessRecord;
  done: (err?: unknown) => void;
}

/** At most this many outcomes per statement. */
const MAX_BATCH = 500;

/**
 * Records succeeded attempts in batches (group commit): the first one is written at once, and those that arrive
 * while a write is in flight go together in the next one, so a burst costs one round trip per batch rather than per
 * attempt. Each caller waits for its own batch to commit; until then its attempt stays claimed, so a process dying
 * here leaves a stale claim that the sweep sends again (at least once).
 */
export class SuccessBatcher {
  private queue: Pending[] = [];
  private flushing: Promise<void> | null = null;

  constructor(private readonly ds: DataSource) {}

  record(record: SuccessRecord): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.queue.push({ record, done: (err) => (err === undefined ? resolve() : reject(err)) });
      this.flushing ??= this.drain();
    });
  }

  /** Resolves once everything recorded so far is written (or has failed to its caller). */
  async idle(): Promise<void> {
    while (this.flushing) await this.flushing;
  }

  private async drain(): Promise<void> {
    // Let the attempts finishing in this turn of the event loop join the first batch.
    await new Promise<void>((r) => setImmediate(r));
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0, MAX_BATCH);
      try {
        await this.write(batch.map((p) => p.record));
        for (const p of batch) p.done();
      } catch (err) {
        for (const p of batch) p.done(err);
      }
    }
    this.flushing = null;
  }

  /** One statement: the attempts' outcomes, and the end of their webhooks' runs of failures. */
  private async write(records: SuccessRecord[]): Promise<void> {
    await this.ds.query(
      `WITH r AS (
         SELECT * FROM unnest($1::text[], $2::int[], $3::int[], $4::timestamptz[]) AS r(id, status_code, latency_ms, finished_at)
       ), d AS (
         UPDATE deliveries d SET status = 'succeeded', status_code = r.status_code, latency_ms = r.latency_ms, finished_at = r.finished_at
           FROM r WHERE d.id = r.id RETURNING d.webhook_id
       )
       UPDATE webhooks SET failing_since = NULL WHERE id IN (SELECT webhook_id FROM d) AND failing_since IS NOT NULL`,
      [records.map((r) => r.id), records.map((r) => r.statusCode), records.map((r) => r.latencyMs), records.map((r) => r.finishedAt)],
    );
  }
}
