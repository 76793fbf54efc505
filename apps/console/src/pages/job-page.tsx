// A job: its schedule with the next fire times, pause/resume, Trigger with parameters (which opens the new run's
// page), and its runs, newest first.
import type { Job } from '@conduit/sdk';
import { useState } from 'react';
import { ScheduleFacts } from '../jobs/schedule-facts.js';
import { TriggerForm } from '../jobs/trigger-form.js';
import { RunList } from '../runs/run-list.js';
import { Link, useNavigation } from '../routing/router.js';
import { paths } from '../routing/routes.js';
import { useSession } from '../session/session-context.js';
import { ErrorState, Loading, describeError } from '../ui/states.js';
import { useLoad } from '../ui/use-load.js';

export function JobPage({ jobId }: { jobId: string }) {
  const { client } = useSession();
  const { navigate } = useNavigation();
  const loaded = useLoad(() => client.jobs.get(jobId), [client, jobId]);
  const [generation, setGeneration] = useState(0);
  const [job, setJob] = useState<Job>();
  const [pausing, setPausing] = useState(false);
  const [pauseError, setPauseError] = useState<string>();

  if (loaded.state === 'loading') return <Loading what="the job" />;
  if (loaded.state === 'failed') return <ErrorState error={loaded.error} retry={loaded.reload} />;
  const current = job ?? loaded.value;

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
        <button
          type="button"
          className="secondary"
          onClick={() => {
            setJob(undefined);
            loaded.reload();
            setGeneration((g) => g + 1);
          }}
        >
          Refresh
        </button>
        {pauseError && <span role="alert">{pauseError}</span>}
      </div>
      <TriggerForm
        jobId={jobId}
        defaults={current.parameters}
        onTriggered={(run) => navigate(paths.run(jobId, run.id))}
      />
      <RunList jobId={jobId} generation={generation} />
    </section>
  );
}
