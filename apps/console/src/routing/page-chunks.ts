// The pages behind sign-in, each loaded when first opened: the graph pages bring React Flow and dagre, monitoring
// brings uPlot, and none of that is needed to sign in or to list the projects (the landing page, kept in the main
// chunk). Vite makes a chunk of each dynamic import, and one of what several share.
import { lazy } from 'react';

const modules = {
  project: () => import('../pages/project-page.js'),
  pipeline: () => import('../pages/pipeline-page.js'),
  job: () => import('../pages/job-page.js'),
  run: () => import('../pages/run-page.js'),
  connectors: () => import('../pages/connectors-page.js'),
  connector: () => import('../pages/connector-page.js'),
  monitoring: () => import('../pages/monitoring-page.js'),
  webhooks: () => import('../pages/webhooks-page.js'),
};

export const ProjectPage = lazy(() => modules.project().then((m) => ({ default: m.ProjectPage })));
export const PipelinePage = lazy(() => modules.pipeline().then((m) => ({ default: m.PipelinePage })));
export const JobPage = lazy(() => modules.job().then((m) => ({ default: m.JobPage })));
export const RunPage = lazy(() => modules.run().then((m) => ({ default: m.RunPage })));
export const ConnectorsPage = lazy(() => modules.connectors().then((m) => ({ default: m.ConnectorsPage })));
export const ConnectorPage = lazy(() => modules.connector().then((m) => ({ default: m.ConnectorPage })));
export const MonitoringPage = lazy(() => modules.monitoring().then((m) => ({ default: m.MonitoringPage })));
export const WebhooksPage = lazy(() => modules.webhooks().then((m) => ({ default: m.WebhooksPage })));

/**
 * Loads every page's module. Component tests do it first: vitest compiles a module the first time it is imported,
 * which on a busy machine can outlast a query's wait for the page.
 */
export function loadAllPages(): Promise<unknown[]> {
  return Promise.all(Object.values(modules).map((load) => load()));
}
