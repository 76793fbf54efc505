// A job: its schedule with the next fire times, pause/resume, Trigger with parameters (which opens the new run's
// page), and its runs, newest first.
import type { Job } from '@conduit/sdk';
import { useState } from 'react';
import { ScheduleFacts } from '../jobs/schedule-facts.js';
import { TriggerForm } from '../jobs/trigger-form.js';
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
  const [job, setJob] = useState<Job>();
  const [pausing, setPausing] = useState(false);
  const [pauseError, setPauseError] = useState<string>();

  if (loaded.state === 'loading') return <Loading what="the job" />;
  if (loaded.state === 'failed') return <ErrorState error={loaded.error} retry={loaded.reload} />;
  const { runs } = loaded.value;
  const current = job ?? loaded.value.job;

  const togglePause = () => {
    setPausing(true);
    setPauseError(undefined);
    (current.status === 'paused' ? client.jobs.resume(jobId) : client.jobs.pause(jobId))
      .then(setJob, (err: unknown) => setPauseError(describeError(err).message))
      .finally(() => setPausing(false));
  };

  return (
    <section aria-labelledby="job-title">
      <nav aria-label="Breadcrumb" className="crumbs">
        <Link to={paths.projects()}>Projects</Link> / <Link to={paths.pipeline(current.pipeline_id)}>Pipeline</Link> /{' '}
        <span aria-current="page">{current.name}</span>
      </nav>
      <h1 id="job-title">
        {current.name} <span className={`badge badge-${current.status}`}>{current.status}</span>
      </h1>
      <ScheduleFacts job={current} />
      <div className="toolbar">
        <button type="button" className="secondary" onClick={togglePause} disabled={pausing}>
          {current.status === 'paused' ? 'Resume schedule' : 'Pause schedule'}
        </button>
        <button type="button" className="secondary" onClick={loaded.reload}>
          Refresh
        </button>
        {pauseError && <span role="alert">{pauseError}</span>}
      </div>
      <TriggerForm
        jobId={jobId}
        defaults={current.parameters}
        onTriggered={(run) => navigate(paths.run(jobId, run.id))}
      />
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
