// A job's runs, newest first, filtered by status on the server; `generation` reloads them (after a trigger, Refresh).
import type { RunStatus } from '@conduit/sdk';
import { useState } from 'react';
import { Link } from '../routing/router.js';
import { paths } from '../routing/routes.js';
import { useSession } from '../session/session-context.js';
import { formatDuration, formatTime } from '../ui/format.js';
import { Empty, ErrorState, Loading } from '../ui/states.js';
import { useLoad } from '../ui/use-load.js';

const STATUSES: RunStatus[] = ['queued', 'running', 'succeeded', 'failed', 'canceled'];

export function RunList({ jobId, generation }: { jobId: string; generation: number }) {
  const { client } = useSession();
  const [status, setStatus] = useState<RunStatus | ''>('');
  const runs = useLoad(
    async () =>
      (
        await client.runs
          .list({ jobId, pageSize: 50, ...(status ? { status } : {}) })
          .pages()
          .next()
      ).value?.data ?? [],
    [client, jobId, status, generation],
  );

  return (
    <section aria-labelledby="runs-title">
      <div className="toolbar">
        <h2 id="runs-title">Runs</h2>
        <label>
          Status{' '}
          <select value={status} onChange={(e) => setStatus(e.target.value as RunStatus | '')}>
            <option value="">all</option>
            {STATUSES.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </label>
      </div>
      {runs.state === 'loading' && <Loading what="runs" />}
      {runs.state === 'failed' && <ErrorState error={runs.error} retry={runs.reload} />}
      {runs.state === 'ready' && runs.value.length === 0 && (
        <Empty>
          <p>
            {status
              ? `No ${status} runs among the latest. Choose “all” to see every run.`
              : 'This job has not run yet. Press “Trigger run” to start one.'}
          </p>
        </Empty>
      )}
      {runs.state === 'ready' && runs.value.length > 0 && (
        <table className="runs">
          <thead>
            <tr>
              <th scope="col">Run</th>
              <th scope="col">Status</th>
              <th scope="col">Trigger</th>
              <th scope="col">Queued</th>
              <th scope="col">Duration</th>
            </tr>
          </thead>
          <tbody>
            {runs.value.map((run) => (
              <tr key={run.id}>
                <th scope="row">
                  <Link to={paths.run(jobId, run.id)}>{run.id}</Link>
                </th>
                <td>
                  <span className={`badge state-${run.status}`}>{run.status}</span>
                </td>
                <td>{run.trigger}</td>
                <td>{formatTime(run.queued_at)}</td>
                <td>{formatDuration(run.duration_ms)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
