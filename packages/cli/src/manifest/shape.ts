// The manifest's own structure: known keys only (a typo must not pass silently, as in the API), the right types,
// names present. The DAG inside a pipeline is checked by @conduit/dag (validate.ts), not here.
import type { Manifest, ManifestIssue, ManifestProject, Path } from './model.js';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

class Checker {
  readonly issues: ManifestIssue[] = [];

  error(path: Path, code: string, message: string): void {
    this.issues.push({ severity: 'error', code, message, path });
  }

  object(value: unknown, path: Path, known: readonly string[], required: readonly string[]): Obj | undefined {
    if (!isObj(value)) {
      this.error(path, 'invalid_type', `${describe(path)} must be a mapping`);
      return undefined;
    }
    for (const key of Object.keys(value)) {
      if (!known.includes(key))
        this.error([...path, key], 'unknown_field', `unknown field "${key}" (expected one of: ${known.join(', ')})`);
    }
    for (const key of required)
      if (value[key] === undefined) this.error(path, 'required', `${describe(path)} needs "${key}"`);
    return value;
  }

  list(value: unknown, path: Path): unknown[] {
    if (value === undefined || value === null) return [];
    if (!Array.isArray(value)) {
      this.error(path, 'invalid_type', `${describe(path)} must be a list`);
      return [];
    }
    return value;
  }

  string(obj: Obj, key: string, path: Path, nullable = false): void {
    const v = obj[key];
    if (v === undefined || (nullable && v === null)) return;
    if (typeof v !== 'string' || (!nullable && v === ''))
      this.error(
        [...path, key],
        'invalid_type',
        `${key} must be a ${nullable ? 'string or null' : 'non-empty string'}`,
      );
  }

  mapping(obj: Obj, key: string, path: Path): void {
    if (obj[key] !== undefined && !isObj(obj[key]))
      this.error([...path, key], 'invalid_type', `${key} must be a mapping`);
  }

  uniqueNames(items: unknown[], path: Path, what: string): void {
    const seen = new Set<string>();
    items.forEach((item, i) => {
      const name = isObj(item) ? item['name'] : undefined;
      if (typeof name !== 'string') return;
      if (seen.has(name)) this.error([...path, i, 'name'], 'duplicate_name', `${what} "${name}" is declared twice`);
      seen.add(name);
    });
  }
}

function describe(path: Path): string {
  return path.length === 0 ? 'the file' : String(path.filter((p) => typeof p === 'string').at(-1));
}

function checkProject(c: Checker, value: unknown, path: Path): void {
  const project = c.object(value, path, ['name', 'description', 'connectors', 'pipelines', 'jobs'], ['name']);
  if (!project) return;
  c.string(project, 'name', path);
  c.string(project, 'description', path, true);
  const connectors = c.list(project['connectors'], [...path, 'connectors']);
  connectors.forEach((item, i) => {
    const at = [...path, 'connectors', i];
    const connector = c.object(item, at, ['name', 'type', 'config'], ['name', 'type', 'config']);
    if (!connector) return;
    c.string(connector, 'name', at);
    c.string(connector, 'type', at);
    c.mapping(connector, 'config', at);
  });
  c.uniqueNames(connectors, [...path, 'connectors'], 'connector');
  const pipelines = c.list(project['pipelines'], [...path, 'pipelines']);
  pipelines.forEach((item, i) => {
    const at = [...path, 'pipelines', i];
    const pipeline = c.object(item, at, ['name', 'description', 'dag'], ['name', 'dag']);
    if (!pipeline) return;
    c.string(pipeline, 'name', at);
    c.string(pipeline, 'description', at, true);
    c.mapping(pipeline, 'dag', at);
  });
  c.uniqueNames(pipelines, [...path, 'pipelines'], 'pipeline');
  const jobs = c.list(project['jobs'], [...path, 'jobs']);
  jobs.forEach((item, i) => {
    const at = [...path, 'jobs', i];
    const job = c.object(
      item,
      at,
      ['name', 'pipeline', 'description', 'schedule', 'timezone', 'concurrency_policy', 'parameters'],
      ['name', 'pipeline'],
    );
    if (!job) return;
    for (const key of ['name', 'pipeline', 'timezone']) c.string(job, key, at);
    for (const key of ['description', 'schedule']) c.string(job, key, at, true);
    c.mapping(job, 'parameters', at);
    const policy = job['concurrency_policy'];
    if (policy !== undefined && (typeof policy !== 'string' || !['allow', 'forbid', 'replace'].includes(policy))) {
      c.error([...at, 'concurrency_policy'], 'invalid_value', 'concurrency_policy must be allow, forbid or replace');
    }
  });
  c.uniqueNames(jobs, [...path, 'jobs'], 'job');
}

/** The manifest when its structure holds (the DAGs still to be validated), and every structural issue. */
export function checkManifestShape(raw: unknown): { manifest: Manifest | undefined; issues: ManifestIssue[] } {
  const c = new Checker();
  const root = c.object(raw, [], ['version', 'projects'], ['projects']);
  if (!root) return { manifest: undefined, issues: c.issues };
  if (root['version'] !== undefined && root['version'] !== 1)
    c.error(['version'], 'unsupported_version', 'version must be 1');
  const projects = c.list(root['projects'], ['projects']);
  projects.forEach((p, i) => checkProject(c, p, ['projects', i]));
  c.uniqueNames(projects, ['projects'], 'project');
  // An unknown or repeated name leaves a readable manifest: the rest of the file is still checked, so every
  // error shows at once. A value of the wrong type does not.
  if (c.issues.some((i) => i.code !== 'unknown_field' && i.code !== 'duplicate_name'))
    return { manifest: undefined, issues: c.issues };
  // Every field was checked above; defaults fill what the file left out.
  const manifest: Manifest = {
    projects: projects.map((value) => {
      const p = value as Obj;
      const project: ManifestProject = {
        name: p['name'] as string,
        ...(p['description'] !== undefined ? { description: p['description'] as string | null } : {}),
        connectors: (p['connectors'] ?? []) as ManifestProject['connectors'],
        pipelines: (p['pipelines'] ?? []) as ManifestProject['pipelines'],
        jobs: (p['jobs'] ?? []) as ManifestProject['jobs'],
      };
      return project;
    }),
  };
  return { manifest, issues: c.issues };
}
