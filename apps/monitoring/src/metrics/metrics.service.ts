import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { parseSince, type Metrics, type MetricsQuery } from '@conduit/contracts';
import { bucketSizeFor } from './bucket-size.js';

interface TotalsRow {
  total: number;
  queued: number;
  running: number;
  succeeded: number;
  failed: number;
  canceled: number;
  avg: number | null;
  p50: number | null;
  p95: number | null;
  max: number | null;
  rows_read: string;
  rows_written: string;
}

interface BucketRow {
  start: Date;
  succeeded: number;
  failed: number;
  avg_duration_ms: number | null;
}

/** Durations are of finished runs (api.md). */
const FINISHED = `status IN ('succeeded', 'failed', 'canceled') AND duration_ms IS NOT NULL`;

/**
 * Get Metrics, computed in SQL over the run facts of the window (a run counts when it was queued inside it): two
 * aggregate queries over the (tenant, [job,] queued_at) index, never the rows themselves.
 */
@Injectable()
export class MetricsService {
  constructor(private readonly ds: DataSource) {}

  async get(tenantId: string, query: MetricsQuery, now: Date = new Date()): Promise<Metrics> {
    // The gateway and handleRpc validated `since` with the same schema, so it parses.
    const windowS = parseSince(query.since)!;
    const to = now;
    const from = new Date(to.getTime() - windowS * 1000);
    const params: unknown[] = [tenantId, from, to];
    const jobFilter = query.job_id ? ` AND job_id = $${params.push(query.job_id)}` : '';
    const where = `tenant_id = $1 AND queued_at >= $2 AND queued_at <= $3${jobFilter}`;

    const [totals] = (await this.ds.query(
      `SELECT count(*)::int AS total,
              count(*) FILTER (WHERE status = 'queued')::int AS queued,
              count(*) FILTER (WHERE status = 'running')::int AS running,
              count(*) FILTER (WHERE status = 'succeeded')::int AS succeeded,
              count(*) FILTER (WHERE status = 'failed')::int AS failed,
              count(*) FILTER (WHERE status = 'canceled')::int AS canceled,
              round(avg(duration_ms) FILTER (WHERE ${FINISHED}))::float8 AS avg,
              round(percentile_cont(0.5) WITHIN GROUP (ORDER BY duration_ms) FILTER (WHERE ${FINISHED}))::float8 AS p50,
              round(percentile_cont(0.95) WITHIN GROUP (ORDER BY duration_ms) FILTER (WHERE ${FINISHED}))::float8 AS p95,
              (max(duration_ms) FILTER (WHERE ${FINISHED}))::float8 AS max,
              coalesce(sum(rows_read), 0)::text AS rows_read,
              coalesce(sum(rows_written), 0)::text AS rows_written
         FROM run_facts WHERE ${where}`,
      params,
    )) as TotalsRow[];

    const sizeS = bucketSizeFor(windowS);
    // Buckets are aligned on multiples of their size since the epoch, so consecutive calls line up.
    const buckets = (await this.ds.query(
      `WITH facts AS (
         SELECT floor(extract(epoch FROM queued_at) / ${sizeS}) * ${sizeS} AS bucket,
                count(*) FILTER (WHERE status = 'succeeded')::int AS succeeded,
                count(*) FILTER (WHERE status = 'failed')::int AS failed,
                round(avg(duration_ms) FILTER (WHERE ${FINISHED}))::float8 AS avg_duration_ms
           FROM run_facts WHERE ${where}
          GROUP BY 1)
       SELECT to_timestamp(b.bucket) AS start, coalesce(f.succeeded, 0) AS succeeded, coalesce(f.failed, 0) AS failed, f.avg_duration_ms
         FROM generate_series(floor(extract(epoch FROM $2::timestamptz) / ${sizeS}) * ${sizeS},
                              extract(epoch FROM $3::timestamptz), ${sizeS}) AS b(bucket)
         LEFT JOIN facts f ON f.bucket = b.bucket
        ORDER BY b.bucket`,
      params,
    )) as BucketRow[];

    const t = totals!;
    const decided = t.succeeded + t.failed;
    return {
      job_id: query.job_id ?? null,
      since: query.since,
      from: from.toISOString(),
      to: to.toISOString(),
      runs: { total: t.total, queued: t.queued, running: t.running, succeeded: t.succeeded, failed: t.failed, canceled: t.canceled },
      success_rate: decided === 0 ? null : t.succeeded / decided,
      duration_ms: { avg: t.avg, p50: t.p50, p95: t.p95, max: t.max },
      rows: { read: Number(t.rows_read), written: Number(t.rows_written) },
      series: buckets.map((b) => ({ start: b.start.toISOString(), succeeded: b.succeeded, failed: b.failed, avg_duration_ms: b.avg_duration_ms })),
    };
  }
}
