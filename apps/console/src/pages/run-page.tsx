// A run: its DAG coloured by node state, the error on the node that failed, decisions, a timeline of the nodes with
// their rows, live logs, Cancel.
import { isFinalRunStatus } from '@conduit/sdk';
import { useState } from 'react';
import { buildGraph } from '../dag/dag-model.js';
import { DagGraph } from '../dag/dag-graph.js';
import { Link } from '../routing/router.js';
import { paths } from '../routing/routes.js';
import { Decisions } from '../runs/decisions.js';
import { NodeTimeline } from '../runs/node-timeline.js';
import { RunLogs } from '../runs/run-logs.js';
import { useLiveRun } from '../runs/use-live-run.js';
import { useSession } from '../session/session-context.js';
import { ErrorState, Loading, describeError } from '../ui/states.js';
import { formatDuration, formatTime } from '../ui/format.js';
import { useLoad } from '../ui/use-load.js';

export function RunPage({ jobId, runId }: { jobId: string; runId: string }) {
  const { client } = useSession();
  const { run, error, replace } = useLiveRun(client, jobId, runId);
  // The DAG the run ran, kept with the run: the pipeline's own may have changed since.
  const ranDag = useLoad(() => client.runs.dag(runId, { jobId }), [client, jobId, runId]);
  const [canceling, setCanceling] = useState(false);
  const [cancelError, setCancelError] = useState<string>();

  if (!run && error !== undefined) return <ErrorState error={error} />;
  if (!run) return <Loading what="the run" />;

  const cancel = () => {
    setCanceling(true);
    setCancelError(undefined);
    client.runs
      .cancel(runId, { jobId })
      .then(replace, (err: unknown) => setCancelError(describeError(err).message))
      .finally(() => setCanceling(false));
  };
  const final = isFinalRunStatus(run.status);

  return (
    <section aria-labelledby="run-title">
      <nav aria-label="Breadcrumb" className="crumbs">
        <Link to={paths.projects()}>Projects</Link> / <Link to={paths.pipeline(run.pipeline_id)}>Pipeline</Link> /{' '}
        <Link to={paths.job(jobId)}>Job</Link> / <span aria-current="page">Run</span>
      </nav>
      <h1 id="run-title">
        Run <code>{run.id}</code>{' '}
        <span className={`badge state-${run.status}`} data-testid="run-status">
          {run.status}
        </span>
      </h1>
      <dl className="facts">
        <dt>Trigger</dt>
        <dd>{run.trigger}</dd>
        <dt>Pipeline version</dt>
        <dd>{run.pipeline_version}</dd>
        <dt>Queued</dt>
        <dd>{formatTime(run.queued_at)}</dd>
        <dt>Duration</dt>
        <dd>{formatDuration(run.duration_ms)}</dd>
        <dt>Rows read / written</dt>
        <dd>
          {run.stats.rows_read} / {run.stats.rows_written}
        </dd>
      </dl>
      {run.error && (
        <div className="state state-error" role="alert">
          <p>
            <strong>{run.error.node_id ? `Node ${run.error.node_id} failed:` : 'The run failed:'}</strong>{' '}
            {run.error.message}
          </p>
        </div>
      )}
      <div className="toolbar">
        {!final && (
          <button type="button" className="danger" onClick={cancel} disabled={canceling}>
            {canceling ? 'Canceling…' : 'Cancel run'}
          </button>
        )}
        {cancelError && <span role="alert">{cancelError}</span>}
        {error !== undefined && <span role="alert">Could not refresh the run: {describeError(error).message}</span>}
      </div>
      {ranDag.state === 'failed' && <ErrorState error={ranDag.error} retry={ranDag.reload} />}
      {ranDag.state === 'loading' && <Loading what="the run's graph" />}
      {ranDag.state === 'ready' && (
        <DagGraph
          {...buildGraph(ranDag.value.dag, undefined, run.nodes)}
          label={`The DAG of run ${run.id} (pipeline version ${ranDag.value.pipeline_version}), coloured by node state`}
        />
      )}
      <Decisions nodes={run.nodes} />
      <NodeTimeline run={run} />
      <RunLogs client={client} jobId={jobId} runId={runId} nodeIds={run.nodes.map((n) => n.id)} />
    </section>
  );
}
