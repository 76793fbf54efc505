import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager, type QueryRunner } from 'typeorm';
import { parseSince, type Metrics, type MetricsQuery } from '@conduit/contracts';
import { bucketSizeFor } from './bucket-size.js';

/** The window's totals. */
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

/** One row per bucket with runs: what `series` shows of it. */
interface BucketRow {
  bucket: Date;
  succeeded: number;
  failed: number;
  avg: number | null;
}

/** Sorting a long window's durations for its percentiles stays in memory (the default 4MB spills to disk at ~100k runs). */
const SORT_WORK_MEM = '64MB';

/** Durations are of finished runs (api.md). */
const FINISHED = `status IN ('succeeded', 'failed', 'canceled') AND duration_ms IS NOT NULL`;

/**
 * Get Metrics, computed in SQL over the run facts of the window (a run counts when it was queued inside it), never
 * the rows themselves: the totals (with the percentiles, one sort of the window's durations) and the buckets (binned
 * with date_bin: timestamp arithmetic, where numeric epoch arithmetic costs twice as much), two scans of the
 * (tenant, [job,] queued_at) index that run at once on two connections sharing one snapshot. One GROUPING SETS scan of
 * both also sorted every bucket's durations for percentiles nothing shows: `node bench/metrics.mjs`, 1M runs over 90
 * days, 771 -> ~400 ms. Empty buckets are filled in here.
 */
@Injectable()
export class MetricsService {
  /** The last caller's taking of two connections: callers take theirs one after another (see twoConnections). */
  private taking: Promise<unknown> = Promise.resolve();

  constructor(private readonly ds: DataSource) {}

  async get(tenantId: string, query: MetricsQuery, now: Date = new Date()): Promise<Metrics> {
    // The gateway and handleRpc validated `since` with the same schema, so it parses.
    const windowS = parseSince(query.since)!;
    const to = now;
    const from = new Date(to.getTime() - windowS * 1000);
    const sizeS = bucketSizeFor(windowS);
    const params: unknown[] = [tenantId, from, to];
    const jobFilter = query.job_id ? ` AND job_id = $${params.push(query.job_id)}` : '';
    const where = `tenant_id = $1 AND queued_at >= $2 AND queued_at <= $3${jobFilter}`;

    const [[t], buckets] = await this.inOneSnapshot(
      (m) =>
        m.query<TotalsRow[]>(
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
        ),
      // Buckets are aligned on multiples of their size since the epoch, so consecutive calls line up.
      (m) =>
        m.query<BucketRow[]>(
          `SELECT date_bin($${params.length + 1}::interval, queued_at, 'epoch') AS bucket,
                  count(*) FILTER (WHERE status = 'succeeded')::int AS succeeded,
                  count(*) FILTER (WHERE status = 'failed')::int AS failed,
                  round(avg(duration_ms) FILTER (WHERE ${FINISHED}))::float8 AS avg
             FROM run_facts WHERE ${where}
            GROUP BY 1`,
          [...params, `${sizeS} seconds`],
        ),
    );

    const byBucket = new Map(buckets.map((r) => [r.bucket.getTime(), r]));
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

  /**
   * Runs `a` and `b` at once, each on a connection of its own, in one snapshot: the first transaction exports it and
   * the second takes it (SET TRANSACTION SNAPSHOT), so both count the same runs. Both sort in memory (SORT_WORK_MEM).
   */
  private async inOneSnapshot<A, B>(
    a: (m: EntityManager) => Promise<A>,
    b: (m: EntityManager) => Promise<B>,
  ): Promise<[A, B]> {
    const [first, second] = await this.twoConnections();
    try {
      await first.startTransaction('REPEATABLE READ');
      const [{ snapshot }] = (await first.query(
        `SELECT pg_export_snapshot() AS snapshot, set_config('work_mem', $1, true)`,
        [SORT_WORK_MEM],
      )) as [{ snapshot: string }];
      // PostgreSQL's own id (hex and dashes); SET TRANSACTION takes no parameter.
      if (!/^[0-9A-F-]+$/i.test(snapshot)) throw new Error(`unexpected snapshot id ${snapshot}`);
      await second.startTransaction('REPEATABLE READ');
      await second.query(`SET TRANSACTION SNAPSHOT '${snapshot}'`);
      await second.query(`SELECT set_config('work_mem', $1, true)`, [SORT_WORK_MEM]);
      const answers = await Promise.all([a(first.manager), b(second.manager)]);
      await Promise.all([first.commitTransaction(), second.commitTransaction()]);
      return answers;
    } catch (err) {
      await Promise.allSettled(
        [first, second].map(async (r) => (r.isTransactionActive ? r.rollbackTransaction() : undefined)),
      );
      throw err;
    } finally {
      await Promise.allSettled([first, second].map(async (r) => r.release()));
    }
  }

  /**
   * Two connections of the pool, taken by one caller at a time: callers that each held one while waiting for a second
   * could hold the whole pool between them and wait for ever.
   */
  private twoConnections(): Promise<[QueryRunner, QueryRunner]> {
    const taken = this.taking.then(async (): Promise<[QueryRunner, QueryRunner]> => {
      const runners: [QueryRunner, QueryRunner] = [this.ds.createQueryRunner(), this.ds.createQueryRunner()];
      try {
        for (const runner of runners) await runner.connect();
      } catch (err) {
        await Promise.allSettled(runners.map(async (r) => r.release()));
        throw err;
      }
      return runners;
    });
    this.taking = taken.catch(() => undefined);
    return taken;
  }
}
