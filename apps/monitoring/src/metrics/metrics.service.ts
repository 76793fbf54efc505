import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { parseSince, type Metrics, type MetricsQuery } from '@conduit/contracts';
import { bucketSizeFor } from './bucket-size.js';

/** One row per bucket with runs, plus the window's totals (bucket null), from one GROUPING SETS scan. */
interface AggregateRow {
  bucket: Date | null;
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

/** Sorting a long window's durations for its percentiles stays in memory (the default 4MB spills to disk at ~100k runs). */
const SORT_WORK_MEM = '64MB';

/** Durations are of finished runs (api.md). */
const FINISHED = `status IN ('succeeded', 'failed', 'canceled') AND duration_ms IS NOT NULL`;

/**
 * Get Metrics, computed in SQL over the run facts of the window (a run counts when it was queued inside it): one
 * aggregate query over the (tenant, [job,] queued_at) index answers the totals and every bucket in a single scan
 * (GROUPING SETS), never the rows themselves. Buckets are binned with date_bin (timestamp arithmetic; numeric
 * epoch arithmetic costs twice as much over a 1M-run window), and empty ones are filled in here.
 */
@Injectable()
export class MetricsService {
  constructor(private readonly ds: DataSource) {}

  async get(tenantId: string, query: MetricsQuery, now: Date = new Date()): Promise<Metrics> {
    // The gateway and handleRpc validated `since` with the same schema, so it parses.
    const windowS = parseSince(query.since)!;
    const to = now;
    const from = new Date(to.getTime() - windowS * 1000);
    const sizeS = bucketSizeFor(windowS);
    const params: unknown[] = [tenantId, from, to, `${sizeS} seconds`];
    const jobFilter = query.job_id ? ` AND job_id = $${params.push(query.job_id)}` : '';
    const where = `tenant_id = $1 AND queued_at >= $2 AND queued_at <= $3${jobFilter}`;

    const rows = await this.ds.transaction(async (m) => {
      await m.query(`SELECT set_config('work_mem', $1, true)`, [SORT_WORK_MEM]);
      // Buckets are aligned on multiples of their size since the epoch, so consecutive calls line up.
      return await m.query<AggregateRow[]>(
        `SELECT date_bin($4::interval, queued_at, 'epoch') AS bucket,
                count(*)::int AS total,
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
           FROM run_facts WHERE ${where}
          GROUP BY GROUPING SETS ((1), ())`,
        params,
      );
    });

    const t = rows.find((r) => r.bucket === null);
    const byBucket = new Map(rows.filter((r) => r.bucket !== null).map((r) => [r.bucket!.getTime(), r]));
    const series: Metrics['series'] = [];
    const sizeMs = sizeS * 1000;
    for (let start = Math.floor(from.getTime() / sizeMs) * sizeMs; start <= to.getTime(); start += sizeMs) {
      const b = byBucket.get(start);
      series.push({
        start: new Date(start).toISOString(),
        succeeded: b?.succeeded ?? 0,
        failed: b?.failed ?? 0,
        avg_duration_ms: b?.avg ?? null,
      });
    }
    const succeeded = t?.succeeded ?? 0;
    const failed = t?.failed ?? 0;
    const decided = succeeded + failed;
    return {
      job_id: query.job_id ?? null,
      since: query.since,
      from: from.toISOString(),
      to: to.toISOString(),
      runs: {
        total: t?.total ?? 0,
        queued: t?.queued ?? 0,
        running: t?.running ?? 0,
        succeeded,
        failed,
        canceled: t?.canceled ?? 0,
      },
      success_rate: decided === 0 ? null : succeeded / decided,
      duration_ms: { avg: t?.avg ?? null, p50: t?.p50 ?? null, p95: t?.p95 ?? null, max: t?.max ?? null },
      rows: { read: Number(t?.rows_read ?? 0), written: Number(t?.rows_written ?? 0) },
      series,
    };
  }
}
