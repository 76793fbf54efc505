import { NewPipelineForm } from '../pipelines/new-pipeline-form.js';
import { Link } from '../routing/router.js';
import { paths } from '../routing/routes.js';
import { useSession } from '../session/session-context.js';
import { Empty, ErrorState, Loading } from '../ui/states.js';
import { useLoad } from '../ui/use-load.js';

export function ProjectPage({ projectId }: { projectId: string }) {
  const { client } = useSession();
  const project = useLoad(async () => {
    const [found, pipelines, connectors] = await Promise.all([
      client.projects.get(projectId),
      client.pipelines.list({ projectId, pageSize: 200 }).toArray(200),
      // For the new pipeline's starter DAG.
      client.connectors.list({ projectId, pageSize: 1 }).toArray(1),
    ]);
    return { project: found, pipelines, connectors };
  }, [client, projectId]);
  if (project.state === 'loading') return <Loading what="the project" />;
  if (project.state === 'failed') return <ErrorState error={project.error} retry={project.reload} />;
  const { project: found, pipelines, connectors } = project.value;
  return (
    <section aria-labelledby="project-title">
      <nav aria-label="Breadcrumb" className="crumbs">
        <Link to={paths.projects()}>Projects</Link> / <span aria-current="page">{found.name}</span>
      </nav>
      <h1 id="project-title">{found.name}</h1>
      {found.description && <p>{found.description}</p>}
      <h2>Pipelines</h2>
      {pipelines.length === 0 ? (
        <Empty>
          <p>This project has no pipelines yet.</p>
          <p>
            Create one below, add one to a manifest and run <code>conduit apply</code>, or{' '}
            <code>POST /v2/pipelines</code> with <code>project_id: "{found.id}"</code>.
          </p>
        </Empty>
      ) : (
        <ul className="cards">
          {pipelines.map((pipeline) => (
            <li key={pipeline.id} className="card">
              <Link to={paths.pipeline(pipeline.id)}>{pipeline.name}</Link>{' '}
              <span className={`badge badge-${pipeline.status}`}>{pipeline.status}</span>
              <p>
                {pipeline.dag.nodes.length} nodes · version {pipeline.version}
              </p>
            </li>
          ))}
        </ul>
      )}
      <NewPipelineForm projectId={found.id} connectors={connectors} />
    </section>
  );
}
