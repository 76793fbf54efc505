// Success rate and duration percentiles per job over the window: one /v2/metrics call per job (the API aggregates
// one job or all of them), busiest jobs first.
import type { Job, Metrics } from '@conduit/sdk';
import { Link } from '../routing/router.js';
import { paths } from '../routing/routes.js';
import { formatDuration } from '../ui/format.js';
import { Empty } from '../ui/states.js';

export interface JobMetrics {
  job: Job;
  metrics: Metrics;
}

export const formatRate = (rate: number | null) => (rate === null ? '–' : `${Math.round(rate * 100)}%`);

export function JobMetricsTable({ rows }: { rows: readonly JobMetrics[] }) {
  const ran = rows.filter((r) => r.metrics.runs.total > 0).sort((a, b) => b.metrics.runs.total - a.metrics.runs.total);
  if (ran.length === 0)
    return (
      <Empty>
        <p>No job ran in this window. Trigger one from its page, or choose a longer window.</p>
      </Empty>
    );
  return (
    <div className="table-wrap">
      <table>
        <caption>Per job: success rate and duration percentiles of finished runs</caption>
        <thead>
          <tr>
            <th scope="col">Job</th>
            <th scope="col">Runs</th>
            <th scope="col">Failed</th>
            <th scope="col">Success rate</th>
            <th scope="col">p50</th>
            <th scope="col">p95</th>
            <th scope="col">Max</th>
          </tr>
        </thead>
        <tbody>
          {ran.map(({ job, metrics }) => (
            <tr key={job.id}>
              <th scope="row">
                <Link to={paths.job(job.id)}>{job.name}</Link>
              </th>
              <td>{metrics.runs.total}</td>
              <td>{metrics.runs.failed}</td>
              <td>
                <meter min={0} max={1} low={0.9} optimum={1} value={metrics.success_rate ?? 0} aria-hidden="true" />{' '}
                {formatRate(metrics.success_rate)}
              </td>
              <td>{formatDuration(metrics.duration_ms.p50)}</td>
              <td>{formatDuration(metrics.duration_ms.p95)}</td>
              <td>{formatDuration(metrics.duration_ms.max)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
