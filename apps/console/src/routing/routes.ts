// The console's pages and their paths, in one place: the router matches them and links are made from them.

export type Route =
  | { page: 'projects' }
  | { page: 'project'; projectId: string }
  | { page: 'pipeline'; pipelineId: string }
  | { page: 'job'; jobId: string }
  | { page: 'run'; jobId: string; runId: string }
  | { page: 'connectors' }
  | { page: 'connector'; connectorId: string }
  | { page: 'new-connector' }
  | { page: 'monitoring' }
  | { page: 'webhooks' }
  | { page: 'not-found'; path: string };

const SEGMENT = '([^/]+)';
const PATTERNS: { pattern: RegExp; route: (ids: string[]) => Route }[] = [
  { pattern: /^\/$/, route: () => ({ page: 'projects' }) },
  {
    pattern: new RegExp(`^/projects/${SEGMENT}$`),
    route: ([projectId]) => ({ page: 'project', projectId: projectId! }),
  },
  {
    pattern: new RegExp(`^/pipelines/${SEGMENT}$`),
    route: ([pipelineId]) => ({ page: 'pipeline', pipelineId: pipelineId! }),
  },
  { pattern: new RegExp(`^/jobs/${SEGMENT}$`), route: ([jobId]) => ({ page: 'job', jobId: jobId! }) },
  {
    pattern: new RegExp(`^/jobs/${SEGMENT}/runs/${SEGMENT}$`),
    route: ([jobId, runId]) => ({ page: 'run', jobId: jobId!, runId: runId! }),
  },
  { pattern: /^\/connectors$/, route: () => ({ page: 'connectors' }) },
  { pattern: /^\/monitoring$/, route: () => ({ page: 'monitoring' }) },
  { pattern: /^\/webhooks$/, route: () => ({ page: 'webhooks' }) },
  { pattern: /^\/connectors\/new$/, route: () => ({ page: 'new-connector' }) },
  {
    pattern: new RegExp(`^/connectors/${SEGMENT}$`),
    route: ([connectorId]) => ({ page: 'connector', connectorId: connectorId! }),
  },
];

function decodedOrUndefined(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

export function routeOf(path: string): Route {
  for (const { pattern, route } of PATTERNS) {
    const match = pattern.exec(path);
    if (!match) continue;
    // A segment that is no valid percent-encoding (`%E0%A4%A`) names nothing: the not-found page, not a blank app.
    const segments = match.slice(1).map(decodedOrUndefined);
    if (segments.includes(undefined)) break;
    return route(segments as string[]);
  }
  return { page: 'not-found', path };
}

export const paths = {
  projects: () => '/',
  project: (projectId: string) => `/projects/${encodeURIComponent(projectId)}`,
  pipeline: (pipelineId: string) => `/pipelines/${encodeURIComponent(pipelineId)}`,
  job: (jobId: string) => `/jobs/${encodeURIComponent(jobId)}`,
  run: (jobId: string, runId: string) => `/jobs/${encodeURIComponent(jobId)}/runs/${encodeURIComponent(runId)}`,
  connectors: () => '/connectors',
  newConnector: () => '/connectors/new',
  connector: (connectorId: string) => `/connectors/${encodeURIComponent(connectorId)}`,
  monitoring: () => '/monitoring',
  webhooks: () => '/webhooks',
};
