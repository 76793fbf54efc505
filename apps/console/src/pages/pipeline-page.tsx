// A pipeline: its DAG as a graph with execution levels and the validate endpoint's issues on the nodes and edges
// they concern, its JSON editable (validated as typed: the graph then shows the draft), and the jobs that run it.
import type { Pipeline, PipelineValidation } from '@conduit/sdk';
import { useState } from 'react';
import { buildGraph, dagIssues } from '../dag/dag-model.js';
import { DagGraph } from '../dag/dag-graph.js';
import { DagEditor, type ValidatedDraft } from '../pipelines/dag-editor.js';
import { Link } from '../routing/router.js';
import { paths } from '../routing/routes.js';
import { useSession } from '../session/session-context.js';
import { Empty, ErrorState, Loading, describeError } from '../ui/states.js';
import { useLoad } from '../ui/use-load.js';

export function PipelinePage({ pipelineId }: { pipelineId: string }) {
  const { client } = useSession();
  const loaded = useLoad(async () => {
    const [pipeline, jobs, validation] = await Promise.all([
      client.pipelines.get(pipelineId),
      client.jobs.list({ pipelineId, pageSize: 200 }).toArray(200),
      client.pipelines.validate(pipelineId),
    ]);
    return { pipeline, jobs, validation };
  }, [client, pipelineId]);
  const [revalidated, setRevalidated] = useState<PipelineValidation>();
  const [saved, setSaved] = useState<Pipeline>();
  const [validateError, setValidateError] = useState<string>();
  /** The editor's draft as the API validated it: drawn instead of the saved DAG until it is saved or undone. */
  const [draft, setDraft] = useState<ValidatedDraft>();

  if (loaded.state === 'loading') return <Loading what="the pipeline" />;
  if (loaded.state === 'failed') return <ErrorState error={loaded.error} retry={loaded.reload} />;
  const { jobs } = loaded.value;
  const pipeline = saved ?? loaded.value.pipeline;
  const validation = revalidated ?? (saved ? saved.validation : loaded.value.validation);
  const graph = draft ? buildGraph(draft.dag, draft.validation) : buildGraph(pipeline.dag, validation);
  const wholeDagIssues = dagIssues(draft ? draft.validation : validation);

  const validate = () => {
    setValidateError(undefined);
    client.pipelines
      .validate(pipelineId)
      .then(setRevalidated, (err: unknown) => setValidateError(describeError(err).message));
  };

  return (
    <section aria-labelledby="pipeline-title">
      <nav aria-label="Breadcrumb" className="crumbs">
        <Link to={paths.projects()}>Projects</Link>
        {pipeline.project_id && (
          <>
            {' / '}
            <Link to={paths.project(pipeline.project_id)}>Project</Link>
          </>
        )}
        {' / '}
        <span aria-current="page">{pipeline.name}</span>
      </nav>
      <h1 id="pipeline-title">
        {pipeline.name}{' '}
        <span className={`badge badge-${validation.valid ? 'valid' : 'invalid'}`}>
          {validation.valid ? 'valid' : 'invalid'}
        </span>
      </h1>
      {pipeline.description && <p>{pipeline.description}</p>}
      <div className="toolbar">
        <button type="button" onClick={validate}>
          Validate again
        </button>
        <span role="status">
          {validation.valid
            ? `${validation.execution_order.length} execution levels, ${validation.warnings.length} warnings`
            : `${validation.errors.length} validation errors: fix them in the DAG below and save`}
        </span>
        {validateError && <span role="alert">{validateError}</span>}
      </div>
      {wholeDagIssues.length > 0 && (
        <ul className="state state-error" aria-label="Problems with the whole DAG">
          {wholeDagIssues.map((issue) => (
            <li key={issue}>{issue}</li>
          ))}
        </ul>
      )}
      {draft && (
        <p className="help" role="note">
          The graph shows your draft as validated, not saved: save it to make it the pipeline&apos;s next version.
        </p>
      )}
      <DagGraph
        // A new set of nodes (a draft's) is a new graph, fitted to the view again as on opening.
        key={graph.nodes.map((n) => n.id).join('\u0000')}
        nodes={graph.nodes}
        edges={graph.edges}
        label={draft ? `Your draft of pipeline ${pipeline.name} (not saved)` : `The DAG of pipeline ${pipeline.name}`}
      />
      <DagEditor
        pipeline={pipeline}
        onSaved={(next) => {
          setSaved(next);
          setRevalidated(undefined);
        }}
        onDraftValidated={setDraft}
      />
      <h2>Jobs</h2>
      {jobs.length === 0 ? (
        <Empty>
          <p>No job runs this pipeline yet.</p>
          <p>
            Create one with <code>POST /v2/jobs</code> and <code>pipeline_id: "{pipeline.id}"</code> (or a job in your
            manifest), then trigger it from its page.
          </p>
        </Empty>
      ) : (
        <ul className="cards">
          {jobs.map((job) => (
            <li key={job.id} className="card">
              <Link to={paths.job(job.id)}>{job.name}</Link>{' '}
              <span className={`badge badge-${job.status}`}>{job.status}</span>
              <p>
                {job.schedule ? `${job.schedule} (${job.timezone})` : 'manual only'}
                {job.last_run && ` · last run ${job.last_run.status}`}
              </p>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
