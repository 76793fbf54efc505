import { Link } from '../routing/router.js';
import { paths } from '../routing/routes.js';
import { useSession } from '../session/session-context.js';
import { Empty, ErrorState, Loading } from '../ui/states.js';
import { useLoad } from '../ui/use-load.js';

export function ProjectsPage() {
  const { client } = useSession();
  const projects = useLoad(() => client.projects.list({ pageSize: 200 }).toArray(200), [client]);
  return (
    <section aria-labelledby="projects-title">
      <h1 id="projects-title">Projects</h1>
      {projects.state === 'loading' && <Loading what="projects" />}
      {projects.state === 'failed' && <ErrorState error={projects.error} retry={projects.reload} />}
      {projects.state === 'ready' && projects.value.length === 0 && (
        <Empty>
          <p>No projects yet.</p>
          <p>
            Create one with <code>conduit apply -f conduit.yaml</code> (see examples/conduit.yaml) or{' '}
            <code>POST /v2/projects</code> in the <a href="/docs">API docs</a>, then reload this page.
          </p>
        </Empty>
      )}
      {projects.state === 'ready' && projects.value.length > 0 && (
        <ul className="cards">
          {projects.value.map((project) => (
            <li key={project.id} className="card">
              <Link to={paths.project(project.id)}>{project.name}</Link>
              {project.description && <p>{project.description}</p>}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
