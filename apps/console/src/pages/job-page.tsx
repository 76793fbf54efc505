// A job: its runs, newest first, and Trigger (which opens the new run's page).
import { useState } from 'react';
import { Link, useNavigation } from '../routing/router.js';
import { paths } from '../routing/routes.js';
import { useSession } from '../session/session-context.js';
import { Empty, ErrorState, Loading, describeError } from '../ui/states.js';
import { useLoad } from '../ui/use-load.js';
import { formatDuration, formatTime } from '../ui/format.js';

export function JobPage({ jobId }: { jobId: string }) {
  const { client } = useSession();
  const { navigate } = useNavigation();
  const loaded = useLoad(async () => {
    const [job, runs] = await Promise.all([
      client.jobs.get(jobId),
      client.runs.list({ jobId, pageSize: 50 }).pages().next(),
    ]);
    return { job, runs: runs.value?.data ?? [] };
  }, [client, jobId]);
  const [triggering, setTriggering] = useState(false);
  const [triggerError, setTriggerError] = useState<string>();

  if (loaded.state === 'loading') return <Loading what="the job" />;
  if (loaded.state === 'failed') return <ErrorState error={loaded.error} retry={loaded.reload} />;
  const { job, runs } = loaded.value;

  const trigger = () => {
    setTriggering(true);
    setTriggerError(undefined);
    client.jobs.trigger(jobId).then(
      (run) => navigate(paths.run(jobId, run.id)),
      (err: unknown) => {
        setTriggerError(describeError(err).message);
        setTriggering(false);
      },
    );
  };

  return (
    <section aria-labelledby="job-title">
      <nav aria-label="Breadcrumb" className="crumbs">
        <Link to={paths.projects()}>Projects</Link> / <Link to={paths.pipeline(job.pipeline_id)}>Pipeline</Link> /{' '}
        <span aria-current="page">{job.name}</span>
      </nav>
      <h1 id="job-title">
        {job.name} <span className={`badge badge-${job.status}`}>{job.status}</span>
      </h1>
      <p>{job.schedule ? `Runs on ${job.schedule} (${job.timezone}).` : 'Runs only when triggered.'}</p>
      <div className="toolbar">
        <button type="button" onClick={trigger} disabled={triggering}>
          {triggering ? 'Triggering…' : 'Trigger run'}
        </button>
        <button type="button" className="secondary" onClick={loaded.reload}>
          Refresh
        </button>
        {triggerError && <span role="alert">{triggerError}</span>}
      </div>
      <h2>Runs</h2>
      {runs.length === 0 ? (
        <Empty>
          <p>This job has not run yet. Press “Trigger run” to start one.</p>
        </Empty>
      ) : (
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
            {runs.map((run) => (
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
