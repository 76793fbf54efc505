// `conduit validate`: the whole file checked offline with the platform's own DAG rules (@conduit/dag) and connector
// type metadata (@conduit/connectors/type-infos), every finding on its line.
import { connectorTypeInfos } from '@conduit/connectors/type-infos';
import { checkDagShape, validateDag, type Dag, type ValidationIssue } from '@conduit/dag';
import { CONNECTOR_NAME_KEY, resolveConnectorNames } from './dag-refs.js';
import type { LoadedManifest } from './load.js';
import { parsePath, type ManifestIssue, type ManifestProject, type Path } from './model.js';

const TYPES = new Map(connectorTypeInfos().map((info) => [info.type, info]));
/** Stands in for a connector's id while validating offline: the name, marked so it cannot clash with a real id. */
const nameRef = (name: string) => `name:${name}`;

function checkConnectors(project: ManifestProject, at: Path, issues: ManifestIssue[]): void {
  project.connectors.forEach((connector, i) => {
    if (!TYPES.has(connector.type)) {
      issues.push({
        severity: 'error',
        code: 'unknown_connector_type',
        message: `unknown connector type "${connector.type}" (known: ${[...TYPES.keys()].join(', ')})`,
        path: [...at, 'connectors', i, 'type'],
      });
    }
  });
}

function checkJobs(project: ManifestProject, at: Path, issues: ManifestIssue[]): void {
  const pipelines = new Set(project.pipelines.map((p) => p.name));
  project.jobs.forEach((job, i) => {
    if (!pipelines.has(job.pipeline)) {
      issues.push({
        severity: 'error',
        code: 'unknown_pipeline',
        message: `job "${job.name}": no pipeline "${job.pipeline}" in project "${project.name}"`,
        path: [...at, 'jobs', i, 'pipeline'],
      });
    }
  });
}

/** A DAG issue's path (relative to the DAG) in the file, where the node named its connector by name. */
function fileDagPath(issue: ValidationIssue, dag: Dag, pipelineAt: Path): Path {
  const parts = parsePath(issue.path ?? '');
  const node = parts[0] === 'nodes' && typeof parts[1] === 'number' ? dag.nodes[parts[1]] : undefined;
  if (
    node &&
    parts[2] === 'config' &&
    parts[3] === 'connector_id' &&
    String(node.config['connector_id']).startsWith('name:')
  )
    parts[3] = CONNECTOR_NAME_KEY;
  return [...pipelineAt, 'dag', ...parts];
}

function checkPipelines(project: ManifestProject, at: Path, issues: ManifestIssue[]): void {
  const connectorTypes = new Map(project.connectors.map((c) => [nameRef(c.name), c.type]));
  project.pipelines.forEach((pipeline, i) => {
    const pipelineAt = [...at, 'pipelines', i];
    const shape = checkDagShape(pipeline.dag);
    if (shape.length > 0) {
      // ShapeProblem paths start at `dag`.
      for (const p of shape)
        issues.push({
          severity: 'error',
          code: p.code,
          message: `pipeline "${pipeline.name}": ${p.path.replace(/^dag\.?/, '') || 'dag'} ${p.message}`,
          path: [...pipelineAt, ...parsePath(p.path)],
        });
      return;
    }
    pipeline.dag.nodes.forEach((node, n) => {
      if (node.config[CONNECTOR_NAME_KEY] !== undefined && node.config['connector_id'] !== undefined) {
        issues.push({
          severity: 'error',
          code: 'ambiguous_connector',
          message: `node "${node.id}": give connector (a name) or connector_id, not both`,
          path: [...pipelineAt, 'dag', 'nodes', n, 'config'],
        });
      }
    });
    const dag: Dag = resolveConnectorNames(pipeline, nameRef);
    const result = validateDag(dag, {
      connector(id) {
        const type = connectorTypes.get(id);
        // A literal connector_id (managed outside this file) cannot be looked up offline: assume it fits.
        if (type === undefined)
          return id.startsWith('name:') ? undefined : { type: 'external', roles: ['source', 'sink', 'sql', 'llm'] };
        return { type, roles: TYPES.get(type)?.roles ?? [] };
      },
    });
    const report = (severity: 'error' | 'warning') => (issue: ValidationIssue) =>
      issues.push({
        severity,
        code: issue.code,
        message: `pipeline "${pipeline.name}": ${issue.message.replace(/"name:([^"]*)"/g, '"$1"')}`,
        path: fileDagPath(issue, dag, pipelineAt),
      });
    result.errors.forEach(report('error'));
    result.warnings.forEach(report('warning'));
  });
}

/** Connectors and jobs are unique per tenant: two projects of the file cannot both declare one name. */
function checkTenantNames(projects: ManifestProject[], issues: ManifestIssue[]): void {
  for (const kind of ['connectors', 'jobs'] as const) {
    const first = new Map<string, string>();
    projects.forEach((project, p) =>
      project[kind].forEach((item, i) => {
        const other = first.get(item.name);
        if (other === undefined) first.set(item.name, project.name);
        else if (other !== project.name)
          issues.push({
            severity: 'error',
            code: 'duplicate_name',
            message: `${kind.slice(0, -1)} "${item.name}" is also declared in project "${other}" (${kind.slice(0, -1)} names are unique per tenant)`,
            path: ['projects', p, kind, i, 'name'],
          });
      }),
    );
  }
}

/** Every issue of the loaded file, sorted by line; the load's own issues (YAML, structure, env) first in order. */
export function validateManifest(loaded: LoadedManifest): ManifestIssue[] {
  const issues: ManifestIssue[] = [...loaded.issues];
  if (loaded.manifest) {
    const found: ManifestIssue[] = [];
    loaded.manifest.projects.forEach((project, i) => {
      const at: Path = ['projects', i];
      checkConnectors(project, at, found);
      checkPipelines(project, at, found);
      checkJobs(project, at, found);
    });
    checkTenantNames(loaded.manifest.projects, found);
    issues.push(...found.map((issue) => ({ ...issue, ...loaded.locate(issue.path) })));
  }
  return issues.sort((a, b) => (a.line ?? 0) - (b.line ?? 0));
}
