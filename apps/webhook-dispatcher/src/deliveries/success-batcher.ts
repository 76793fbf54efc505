import type { DataSource } from 'typeorm';
import { GroupCommit } from '@conduit/service-kit';

/** One succeeded attempt to record. */
export interface SuccessRecord {
  id: string;
  statusCode: number | null;
  latencyMs: number;
  finishedAt: Date;
  /** The claim the attempt was sent under: a claim the sweep took over meanwhile is not overwritten. */
  claimedAt: Date;
}

/** At most this many outcomes per statement. */
const MAX_BATCH = 500;

/**
 * Records succeeded attempts in batches (group commit). Each caller waits for its own batch to commit; until then
 * its attempt stays claimed, so a process dying here leaves a stale claim that the sweep sends again (at least once).
 */
export class SuccessBatcher {
  private readonly commits: GroupCommit<SuccessRecord, void>;

  constructor(private readonly ds: DataSource) {
    this.commits = new GroupCommit((records) => this.write(records), MAX_BATCH);
  }

  record(record: SuccessRecord): Promise<void> {
    return this.commits.submit(record);
  }

  /** Resolves once everything recorded so far is written (or has failed to its caller). */
  idle(): Promise<void> {
    return this.commits.idle();
  }

  /** One statement: the attempts' outcomes, and the end of their webhooks' runs of failures. */
  private async write(records: SuccessRecord[]): Promise<void[]> {
    await this.ds.query(
      `WITH r AS (
         SELECT * FROM unnest($1::text[], $2::int[], $3::int[], $4::timestamptz[], $5::timestamptz[]) AS r(id, status_code, latency_ms, finished_at, claimed_at)
       ), d AS (
         UPDATE deliveries d SET status = 'succeeded', status_code = r.status_code, latency_ms = r.latency_ms, finished_at = r.finished_at
           FROM r WHERE d.id = r.id AND d.status = 'pending' AND d.claimed_at = r.claimed_at RETURNING d.webhook_id
       )
       UPDATE webhooks SET failing_since = NULL WHERE id IN (SELECT webhook_id FROM d) AND failing_since IS NOT NULL`,
      [
        records.map((r) => r.id),
        records.map((r) => r.statusCode),
        records.map((r) => r.latencyMs),
        records.map((r) => r.finishedAt),
        records.map((r) => r.claimedAt),
      ],
    );
    return records.map(() => undefined);
  }
}
