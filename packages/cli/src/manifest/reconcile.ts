// `conduit plan` and `conduit apply` share one walk: for every resource of the file, in dependency order (project,
// connectors, pipelines, jobs), find the one of that name in its project, compare, and (apply only) create or
// update it. Plan therefore shows exactly what apply does; a second apply finds everything unchanged. A name the
// tenant holds in another project (held.ts) stops both before the first step.
import type { ConduitClient, Connector, Job, Pipeline, Project, RequestBody } from '@conduit/sdk';
import { checkNameConflicts, heldIn, listHeld, type Held } from './held.js';
import { changedFields, connectorConfigChanges, same } from './compare.js';
import { resolveConnectorNames } from './dag-refs.js';
import type { Manifest, ManifestJob, ManifestProject } from './model.js';

export type Action = 'create' | 'update' | 'unchanged';
export type Kind = 'project' | 'connector' | 'pipeline' | 'job';

export interface PlanStep {
  kind: Kind;
  project: string;
  name: string;
  action: Action;
  /** The fields that differ (update), e.g. `dag`, `config.host`. */
  changes: string[];
  /** The resource's id once known (existing, or made by apply). */
  id: string | null;
}

export interface ReconcileOptions {
  apply: boolean;
  updateSecrets: boolean;
  /** Told of each step as it is decided (and, when applying, done). */
  onStep?: (step: PlanStep) => void;
}

export interface ReconcileResult {
  steps: PlanStep[];
  /** Pipelines the API stored as `invalid` after apply, with why. */
  invalidPipelines: { project: string; name: string; errors: string[] }[];
}

/**
 * The manifest's free-form parts (connector configs, DAG node configs, job parameters) are typed by the API per
 * connector and node type; the file was checked offline first and the API validates every body again, answering a
 * problem that names each field at fault. This is the one place where file values become request bodies.
 */
function body<Op extends 'createConnector' | 'updateConnector' | 'createPipeline' | 'updatePipeline'>(
  value: Record<string, unknown>,
): RequestBody<Op> {
  return value as RequestBody<Op>;
}

const JOB_DEFAULTS = {
  description: null,
  schedule: null,
  timezone: 'UTC',
  concurrency_policy: 'forbid',
  parameters: {},
};

const byName = <T extends { name: string }>(items: T[]): Map<string, T> => new Map(items.map((i) => [i.name, i]));

/** An API call of apply that failed, named by its resource: the steps before it are done, the rest are not. */
export class StepError extends Error {
  constructor(step: Pick<PlanStep, 'kind' | 'project' | 'name' | 'action'>, cause: unknown) {
    const name = step.kind === 'project' ? step.name : `${step.project}/${step.name}`;
    super(`apply stopped at ${step.kind} ${name} (${step.action})`, { cause });
  }
}

class Reconciler {
  readonly steps: PlanStep[] = [];
  readonly invalidPipelines: ReconcileResult['invalidPipelines'] = [];

  constructor(
    private readonly client: ConduitClient,
    private readonly options: ReconcileOptions,
    private readonly held: Held,
  ) {}

  private record(step: PlanStep): void {
    this.steps.push(step);
    this.options.onStep?.(step);
  }

  /** Decides one resource's step and, when applying, carries it out; answers its id (null in a plan of a new one). */
  private async step<T extends { id: string }>(
    kind: Kind,
    project: string,
    name: string,
    held: T | undefined,
    changes: string[],
    create: () => Promise<T>,
    update: (id: string) => Promise<T>,
  ): Promise<T | { id: null }> {
    const action: Action = held === undefined ? 'create' : changes.length > 0 ? 'update' : 'unchanged';
    let result: T | { id: null } = held ?? { id: null };
    try {
      if (this.options.apply && action === 'create') result = await create();
      if (this.options.apply && action === 'update' && held) result = await update(held.id);
    } catch (err) {
      throw new StepError({ kind, project, name, action }, err);
    }
    this.record({ kind, project, name, action, changes: action === 'update' ? changes : [], id: result.id });
    return result;
  }

  async project(wanted: ManifestProject): Promise<void> {
    const held = this.held.projects.get(wanted.name);
    const fields = { name: wanted.name, description: wanted.description ?? null };
    const project = await this.step<Project>(
      'project',
      wanted.name,
      wanted.name,
      held,
      held ? changedFields(fields, held) : [],
      () => this.client.projects.create(fields),
      (id) => this.client.projects.update(id, fields),
    );
    const projectId = project.id;
    // A project that did not exist (just made, or to be made in a plan) holds nothing.
    const inProject = heldIn(this.held, held?.id);
    const connectors = byName(inProject.connectors);
    const pipelines = byName(inProject.pipelines);
    const jobs = byName(inProject.jobs);

    const connectorIds = new Map<string, string | null>();
    for (const connector of wanted.connectors) {
      const heldConnector = connectors.get(connector.name);
      const fields = { name: connector.name, type: connector.type, project_id: projectId, config: connector.config };
      const changes = heldConnector
        ? [
            ...(heldConnector.type !== connector.type ? ['type'] : []),
            ...connectorConfigChanges(connector.config, heldConnector, this.options),
          ]
        : [];
      const made = await this.step<Connector>(
        'connector',
        wanted.name,
        connector.name,
        heldConnector,
        changes,
        () => this.client.connectors.create(body<'createConnector'>(fields)),
        (id) => this.client.connectors.update(id, body<'updateConnector'>(fields)),
      );
      connectorIds.set(connector.name, made.id);
    }

    const pipelineIds = new Map<string, string | null>();
    for (const pipeline of wanted.pipelines) {
      const heldPipeline = pipelines.get(pipeline.name);
      // A connector still to be made (in a plan) has no id: the DAG then differs from any held one.
      const dag = resolveConnectorNames(pipeline, (name) => connectorIds.get(name) ?? `(new connector ${name})`);
      const fields = { name: pipeline.name, description: pipeline.description ?? null, project_id: projectId, dag };
      const changes = heldPipeline
        ? [
            ...changedFields({ description: fields.description }, heldPipeline),
            ...(same(dag, heldPipeline.dag) ? [] : ['dag']),
          ]
        : [];
      const made = await this.step<Pipeline>(
        'pipeline',
        wanted.name,
        pipeline.name,
        heldPipeline,
        changes,
        () => this.client.pipelines.create(body<'createPipeline'>(fields)),
        (id) => this.client.pipelines.update(id, body<'updatePipeline'>(fields)),
      );
      pipelineIds.set(pipeline.name, made.id);
      if (this.options.apply && 'status' in made && made.status === 'invalid') {
        this.invalidPipelines.push({
          project: wanted.name,
          name: pipeline.name,
          errors: made.validation.errors.map((e) => (e.path ? `${e.path}: ${e.message}` : e.message)),
        });
      }
    }

    for (const job of wanted.jobs)
      await this.job(wanted.name, job, jobs.get(job.name), pipelineIds.get(job.pipeline) ?? null);
  }

  private async job(
    project: string,
    wanted: ManifestJob,
    held: Job | undefined,
    pipelineId: string | null,
  ): Promise<void> {
    const fields = {
      name: wanted.name,
      pipeline_id: pipelineId ?? `(new pipeline ${wanted.pipeline})`,
      description: wanted.description ?? null,
      schedule: wanted.schedule ?? null,
      timezone: wanted.timezone ?? JOB_DEFAULTS.timezone,
      concurrency_policy: wanted.concurrency_policy ?? 'forbid',
      parameters: wanted.parameters ?? {},
    } satisfies RequestBody<'createJob'>;
    const changes = held ? changedFields(fields, held, JOB_DEFAULTS) : [];
    await this.step<Job>(
      'job',
      project,
      wanted.name,
      held,
      changes,
      () => this.client.jobs.create(fields),
      (id) => this.client.jobs.update(id, fields),
    );
  }
}

export async function reconcile(
  client: ConduitClient,
  manifest: Manifest,
  options: ReconcileOptions,
): Promise<ReconcileResult> {
  const held = await listHeld(client);
  checkNameConflicts(manifest, held);
  const reconciler = new Reconciler(client, options, held);
  for (const project of manifest.projects) await reconciler.project(project);
  return { steps: reconciler.steps, invalidPipelines: reconciler.invalidPipelines };
}
