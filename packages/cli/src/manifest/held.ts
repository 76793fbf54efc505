// What the tenant holds, listed once before plan or apply decides anything, and the file's names that it already
// uses elsewhere. Projects, connectors and jobs are unique per tenant, pipelines per project
// (docs/api-decisions.md, "Names"): a connector or job of the file whose name belongs to one in another project
// would be planned as a create and refused by apply (409 name_taken) halfway, so it is a conflict up front.
import type { ConduitClient, Connector, Job, Pipeline, Project } from '@conduit/sdk';
import { CliError } from '../output.js';
import type { Manifest } from './model.js';

export interface Held {
  projects: Map<string, Project>;
  connectors: Connector[];
  pipelines: Pipeline[];
  jobs: Job[];
}

export async function listHeld(client: ConduitClient): Promise<Held> {
  const [projects, connectors, pipelines, jobs] = await Promise.all([
    client.projects.list({ pageSize: 200 }).toArray(),
    client.connectors.list({ pageSize: 200 }).toArray(),
    client.pipelines.list({ pageSize: 200 }).toArray(),
    client.jobs.list({ pageSize: 200 }).toArray(),
  ]);
  return { projects: new Map(projects.map((p) => [p.name, p])), connectors, pipelines, jobs };
}

/** The held resources of one project (none for a project still to be made). */
export function heldIn(held: Held, projectId: string | undefined): Omit<Held, 'projects'> {
  if (projectId === undefined) return { connectors: [], pipelines: [], jobs: [] };
  const pipelines = held.pipelines.filter((p) => p.project_id === projectId);
  const pipelineIds = new Set(pipelines.map((p) => p.id));
  return {
    connectors: held.connectors.filter((c) => c.project_id === projectId),
    pipelines,
    jobs: held.jobs.filter((j) => pipelineIds.has(j.pipeline_id)),
  };
}

/** Throws, naming each, when a connector or job of the file has the name of one held in another project. */
export function checkNameConflicts(manifest: Manifest, held: Held): void {
  const projectNames = new Map([...held.projects.values()].map((p) => [p.id, p.name]));
  const pipelineProject = new Map(held.pipelines.map((p) => [p.id, p.project_id]));
  const conflicts: string[] = [];
  for (const project of manifest.projects) {
    const projectId = held.projects.get(project.name)?.id;
    const conflict = (kind: string, name: string, heldIn: string | null) =>
      conflicts.push(
        `${kind} "${name}" of project "${project.name}": a ${kind} of that name exists ` +
          `${heldIn ? `in project "${projectNames.get(heldIn) ?? heldIn}"` : 'outside any project'} ` +
          `(${kind} names are unique per tenant); rename it in the file`,
      );
    for (const connector of project.connectors) {
      const other = held.connectors.find((c) => c.name === connector.name);
      if (other && other.project_id !== projectId) conflict('connector', connector.name, other.project_id);
    }
    for (const job of project.jobs) {
      const other = held.jobs.find((j) => j.name === job.name);
      const otherProject = other ? (pipelineProject.get(other.pipeline_id) ?? null) : undefined;
      if (otherProject !== undefined && otherProject !== projectId) conflict('job', job.name, otherProject);
    }
  }
  if (conflicts.length > 0)
    throw new CliError(
      'name_conflict',
      `${conflicts.length === 1 ? 'a name is' : `${conflicts.length} names are`} taken in another project; nothing was changed`,
      conflicts,
    );
}
