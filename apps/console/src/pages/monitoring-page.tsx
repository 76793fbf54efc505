// Monitoring: runs over time and their durations for the tenant, success rate and percentiles per job, open alerts;
// all from /v2/metrics and /v2/alerts over a window the user picks.
import { useMemo, useState } from 'react';
import { JobMetricsTable, formatRate } from '../monitoring/job-metrics.js';
import { OpenAlerts } from '../monitoring/open-alerts.js';
import { TimeChart, type ChartSeries } from '../monitoring/time-chart.js';
import { dataOf } from '../sdk/raw-result.js';
import { useSession } from '../session/session-context.js';
import { formatDuration } from '../ui/format.js';
import { ErrorState, Loading } from '../ui/states.js';
import { useLoad } from '../ui/use-load.js';

const WINDOWS = { '24h': 'last 24 hours', '7d': 'last 7 days', '30d': 'last 30 days' } as const;
type Window = keyof typeof WINDOWS;
/** Jobs beyond these are left out of the per-job table (one metrics call each). */
const MAX_JOBS = 50;

const count = (v: number | null) => (v === null ? '–' : String(v));

export function MonitoringPage() {
  const { client } = useSession();
  const [since, setSince] = useState<Window>('24h');
  const loaded = useLoad(async () => {
    const [overall, jobs, alerts] = await Promise.all([
      dataOf(client.raw.GET('/v2/metrics', { params: { query: { since } } })),
      client.jobs.list({ pageSize: MAX_JOBS }).toArray(MAX_JOBS),
      dataOf(client.raw.GET('/v2/alerts', { params: { query: { status: 'open', limit: 50 } } })),
    ]);
    const perJob = await Promise.all(
      jobs.map(async (job) => ({
        job,
        metrics: await dataOf(client.raw.GET('/v2/metrics', { params: { query: { since, job_id: job.id } } })),
      })),
    );
    return { overall, perJob, alerts: alerts.data, allAlertsListed: alerts.next_cursor === null };
  }, [client, since]);

  const overall = loaded.state === 'ready' ? loaded.value.overall : undefined;
  const charts = useMemo(() => {
    if (!overall) return undefined;
    const times = overall.series.map((b) => b.start);
    const runs: ChartSeries[] = [
      { label: 'succeeded', colour: '#116329', values: overall.series.map((b) => b.succeeded), format: count },
      { label: 'failed', colour: '#a40e26', values: overall.series.map((b) => b.failed), format: count },
    ];
    const durations: ChartSeries[] = [
      {
        label: 'average duration',
        colour: '#0b5cad',
        values: overall.series.map((b) => b.avg_duration_ms),
        format: formatDuration,
      },
    ];
    return { times, runs, durations };
  }, [overall]);

  return (
    <section aria-labelledby="monitoring-title">
      <div className="toolbar">
        <h1 id="monitoring-title">Monitoring</h1>
        <label>
          Window{' '}
          <select value={since} onChange={(e) => setSince(e.target.value as Window)}>
            {Object.entries(WINDOWS).map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </select>
        </label>
        <button type="button" className="secondary" onClick={loaded.reload}>
          Refresh
        </button>
      </div>
      {loaded.state === 'loading' && <Loading what="metrics" />}
      {loaded.state === 'failed' && <ErrorState error={loaded.error} retry={loaded.reload} />}
      {loaded.state === 'ready' && charts && (
        <>
          <dl className="facts" aria-label="The window at a glance">
            <dt>Runs</dt>
            <dd>
              {loaded.value.overall.runs.total} ({loaded.value.overall.runs.succeeded} succeeded,{' '}
              {loaded.value.overall.runs.failed} failed, {loaded.value.overall.runs.running} running)
            </dd>
            <dt>Success rate</dt>
            <dd>{formatRate(loaded.value.overall.success_rate)}</dd>
            <dt>Duration p50 / p95</dt>
            <dd>
              {formatDuration(loaded.value.overall.duration_ms.p50)} /{' '}
              {formatDuration(loaded.value.overall.duration_ms.p95)}
            </dd>
          </dl>
          <div className="charts">
            <TimeChart title="Runs over time" times={charts.times} series={charts.runs} />
            <TimeChart title="Average run duration" times={charts.times} series={charts.durations} />
          </div>
          <JobMetricsTable rows={loaded.value.perJob} />
          <OpenAlerts alerts={loaded.value.alerts} complete={loaded.value.allAlertsListed} />
        </>
      )}
    </section>
  );
}
