// conduit.yaml as the CLI reads it: projects, each with its connectors, pipelines and jobs, matched by name
// (project, connector and job names are unique per tenant, pipeline names per project). Nodes name their connector
// by its name in the file (`connector: shop-db`).

export type Path = readonly (string | number)[];

export interface ManifestNode {
  id: string;
  type: string;
  config: Record<string, unknown>;
}

export interface ManifestEdge {
  from: string;
  to: string;
  when?: string;
}

export interface ManifestConnector {
  name: string;
  type: string;
  config: Record<string, unknown>;
}

export interface ManifestPipeline {
  name: string;
  description?: string | null;
  dag: { nodes: ManifestNode[]; edges: ManifestEdge[] };
}

export interface ManifestJob {
  name: string;
  /** The name of a pipeline of the same project. */
  pipeline: string;
  description?: string | null;
  schedule?: string | null;
  timezone?: string;
  concurrency_policy?: 'allow' | 'forbid' | 'replace';
  parameters?: Record<string, unknown>;
}

export interface ManifestProject {
  name: string;
  description?: string | null;
  connectors: ManifestConnector[];
  pipelines: ManifestPipeline[];
  jobs: ManifestJob[];
}

export interface Manifest {
  projects: ManifestProject[];
}

/** A finding about the file, placed on its line. */
export interface ManifestIssue {
  severity: 'error' | 'warning';
  code: string;
  message: string;
  path: Path;
  line?: number;
  column?: number;
}

export function pathText(path: Path): string {
  return path.reduce<string>(
    (text, part) => (typeof part === 'number' ? `${text}[${part}]` : text ? `${text}.${part}` : part),
    '',
  );
}

/** `nodes[2].config.mode` -> ['nodes', 2, 'config', 'mode'] (the paths @conduit/dag reports). */
export function parsePath(text: string): (string | number)[] {
  const parts: (string | number)[] = [];
  for (const match of text.matchAll(/([^.[\]]+)|\[(\d+)\]/g))
    parts.push(match[2] !== undefined ? Number(match[2]) : match[1]!);
  return parts;
}
