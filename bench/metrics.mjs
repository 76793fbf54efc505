// Get Metrics over 1M stored run facts: MetricsService.get from the built @conduit/monitoring (the two aggregate
// queries it runs) on a throwaway schema migrated with the monitoring migrations, for since = 24h, 7d and 90d, over
// the tenant and over one job, against the unavoidable scan of the same window (`SELECT count(*)` with the same
// filter) timed in the same script. The figure is metrics ms / count ms per window.
//
//   node metrics.mjs                 the bench (BENCH_METRICS_ROWS, BENCH_METRICS_REPEATS)
//   node metrics.mjs --explain       also prints EXPLAIN ANALYZE of the aggregate query for every window
import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { createMonitoringDataSource, MetricsService } from '@conduit/monitoring';
import { migrate } from '@conduit/service-kit';
import { printResult, quantile, round } from './lib/report.mjs';

const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const ROWS = Number(process.env.BENCH_METRICS_ROWS ?? 1_000_000);
const REPEATS = Number(process.env.BENCH_METRICS_REPEATS ?? 7);
const JOBS = 100;
const DAYS = 90;
const SLOW_MS = 200;
const WINDOWS = [
  { since: '24h', seconds: 86_400 },
  { since: '7d', seconds: 7 * 86_400 },
  { since: '90d', seconds: DAYS * 86_400 },
];
const explain = process.argv.includes('--explain');
const TENANT = 'tnt_bench_metrics';
const jobId = (j) => `job_${String(j).padStart(26, '0')}`;

/**
 * ROWS facts of one tenant spread evenly over DAYS days up to `now` across JOBS jobs (generate_series, in SQL):
 * about 90% succeeded, 7% failed, 2% canceled; the last minutes' runs still queued or running.
 */
async function seed(ds, now) {
  const spanMs = DAYS * 86_400_000;
  await ds.query(
    `INSERT INTO run_facts (run_id, tenant_id, job_id, pipeline_id, status, trigger, attempt, queued_at, started_at, finished_at,
                            duration_ms, rows_read, rows_written, error, updated_at)
     SELECT 'run_' || lpad(g.i::text, 26, '0'), $1, 'job_' || lpad((g.i % ${JOBS})::text, 26, '0'), 'pip_' || lpad((g.i % ${JOBS})::text, 26, '0'),
            s.status, 'schedule', 1, q.at, q.at + interval '50 ms',
            CASE WHEN s.final THEN q.at + d.ms * interval '1 ms' END, CASE WHEN s.final THEN d.ms END,
            (g.i % 1000) * 10, (g.i % 1000) * 9, NULL, q.at
       FROM generate_series(1, $2::int) AS g(i)
      CROSS JOIN LATERAL (SELECT $3::timestamptz - ((g.i - 1)::float8 / $2 * $4) * interval '1 ms' AS at) AS q
      CROSS JOIN LATERAL (SELECT 200 + (hashint4(g.i) & 65535) AS ms) AS d
      CROSS JOIN LATERAL (
        SELECT CASE WHEN q.at > $3::timestamptz - interval '2 minutes' THEN (CASE WHEN g.i % 2 = 0 THEN 'queued' ELSE 'running' END)
                    WHEN g.i % 100 < 7 THEN 'failed' WHEN g.i % 100 < 9 THEN 'canceled' ELSE 'succeeded' END AS status) AS st
      CROSS JOIN LATERAL (SELECT st.status, st.status NOT IN ('queued', 'running') AS final) AS s`,
    [TENANT, ROWS, now, spanMs],
  );
  // As autovacuum would have by then: fresh statistics, and a visibility map so index-only scans skip the heap.
  await ds.query('VACUUM (ANALYZE) run_facts');
}

/** Median and p99-ish (max of few) of `REPEATS` timed calls after one warm-up call. */
async function time(fn) {
  await fn();
  const ms = [];
  for (let i = 0; i < REPEATS; i++) {
    const t = performance.now();
    await fn();
    ms.push(performance.now() - t);
  }
  ms.sort((a, b) => a - b);
  return { median_ms: round(quantile(ms, 0.5), 1), max_ms: round(ms[ms.length - 1], 1) };
}

/** The unavoidable scan of the window: count its facts, with the same filter the metrics use. */
function baselineCount(ds, from, to, job) {
  const params = [TENANT, from, to];
  const jobFilter = job ? ` AND job_id = $${params.push(job)}` : '';
  return ds.query(
    `SELECT count(*) FROM run_facts WHERE tenant_id = $1 AND queued_at >= $2 AND queued_at <= $3${jobFilter}`,
    params,
  );
}

async function printPlan(ds, from, to, job) {
  const params = [TENANT, from, to];
  const jobFilter = job ? ` AND job_id = $${params.push(job)}` : '';
  const plan = await ds.query(
    `EXPLAIN (ANALYZE, BUFFERS) SELECT count(*), percentile_cont(0.5) WITHIN GROUP (ORDER BY duration_ms), sum(rows_read)
       FROM run_facts WHERE tenant_id = $1 AND queued_at >= $2 AND queued_at <= $3${jobFilter}`,
    params,
  );
  for (const row of plan) console.log(`    ${row['QUERY PLAN']}`);
}

const schema = `monitoring_bench_${randomUUID().replace(/-/g, '')}`;
const ds = createMonitoringDataSource({ url: DATABASE_URL, schema, poolSize: 2 });
await migrate(ds);
const results = [];
try {
  const now = new Date();
  const seedStarted = performance.now();
  await seed(ds, now);
  const [{ n }] = await ds.query('SELECT count(*)::int AS n FROM run_facts WHERE tenant_id = $1', [TENANT]);
  if (n !== ROWS) throw new Error(`seeded ${n} run facts, expected ${ROWS}`);
  console.log(
    `seeded ${ROWS} run facts (${JOBS} jobs, ${DAYS} days) in ${round((performance.now() - seedStarted) / 1000, 1)} s; median of ${REPEATS} calls each`,
  );

  const metrics = new MetricsService(ds);
  const job = jobId(42);
  for (const w of WINDOWS) {
    for (const jobFilter of [undefined, job]) {
      const from = new Date(now.getTime() - w.seconds * 1000);
      const answer = await metrics.get(TENANT, { since: w.since, ...(jobFilter ? { job_id: jobFilter } : {}) }, now);
      const [{ count }] = await baselineCount(ds, from, now, jobFilter);
      // Both sides must have looked at the same facts, or the ratio compares different work.
      if (answer.runs.total !== Number(count))
        throw new Error(`${w.since}: metrics counted ${answer.runs.total} runs, the baseline ${count}`);
      const subject = await time(() =>
        metrics.get(TENANT, { since: w.since, ...(jobFilter ? { job_id: jobFilter } : {}) }, now),
      );
      const baseline = await time(() => baselineCount(ds, from, now, jobFilter));
      const ratio = round(subject.median_ms / Math.max(baseline.median_ms, 0.1), 1);
      const label = `since=${w.since}${jobFilter ? ' job_id' : ''}`;
      results.push({
        window: w.since,
        job_id: Boolean(jobFilter),
        runs: answer.runs.total,
        buckets: answer.series.length,
        metrics: subject,
        baseline_count: baseline,
        ratio,
      });
      console.log(
        `${label.padEnd(18)} ${String(answer.runs.total).padStart(8)} runs  metrics ${String(subject.median_ms).padStart(7)} ms (max ${subject.max_ms})` +
          `  count(*) ${String(baseline.median_ms).padStart(7)} ms  ratio ${ratio}${subject.median_ms > SLOW_MS ? '  SLOW' : ''}`,
      );
      if (explain) await printPlan(ds, from, now, jobFilter);
    }
  }
} finally {
  await ds.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await ds.destroy();
}

const slowest = results.reduce((a, b) => (b.metrics.median_ms > a.metrics.median_ms ? b : a));
const worstRatio = Math.max(...results.map((r) => r.ratio));
console.log(
  `slowest: since=${slowest.window}${slowest.job_id ? ' job_id' : ''} ${slowest.metrics.median_ms} ms (goal <= ~${SLOW_MS} ms); worst ratio to count(*) ${worstRatio}`,
);
printResult('metrics', {
  rows: ROWS,
  jobs: JOBS,
  days: DAYS,
  repeats: REPEATS,
  results,
  slowest_ms: slowest.metrics.median_ms,
  worst_ratio: worstRatio,
  goal_ms: SLOW_MS,
  goal_met: slowest.metrics.median_ms <= SLOW_MS,
  headline: {
    subject: `metrics ${slowest.metrics.median_ms} ms at since=${slowest.window}${slowest.job_id ? ' job_id' : ''} over ${ROWS} runs`,
    baseline: `count(*) of that window ${slowest.baseline_count.median_ms} ms`,
    ratio: `worst ${worstRatio}x count(*) (goal <= ~${SLOW_MS} ms)`,
  },
});
