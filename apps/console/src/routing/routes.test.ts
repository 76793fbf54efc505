import { describe, expect, it } from 'vitest';
import { paths, routeOf } from './routes.js';

describe('routes', () => {
  it('reads back every path the console makes', () => {
    expect(routeOf(paths.projects())).toEqual({ page: 'projects' });
    expect(routeOf(paths.project('prj_1'))).toEqual({ page: 'project', projectId: 'prj_1' });
    expect(routeOf(paths.pipeline('pip_1'))).toEqual({ page: 'pipeline', pipelineId: 'pip_1' });
    expect(routeOf(paths.job('job_1'))).toEqual({ page: 'job', jobId: 'job_1' });
    expect(routeOf(paths.run('job_1', 'run_1'))).toEqual({ page: 'run', jobId: 'job_1', runId: 'run_1' });
    expect(routeOf(paths.connectors())).toEqual({ page: 'connectors' });
    expect(routeOf(paths.newConnector())).toEqual({ page: 'new-connector' });
    expect(routeOf(paths.connector('con_1'))).toEqual({ page: 'connector', connectorId: 'con_1' });
    expect(routeOf(paths.monitoring())).toEqual({ page: 'monitoring' });
    expect(routeOf(paths.webhooks())).toEqual({ page: 'webhooks' });
  });

  it('escapes ids and names unknown paths', () => {
    expect(routeOf(paths.project('a/b'))).toEqual({ page: 'project', projectId: 'a/b' });
    expect(routeOf('/v3/nothing')).toEqual({ page: 'not-found', path: '/v3/nothing' });
  });

  it('names a path whose segment is no valid percent-encoding not found, rather than throwing', () => {
    expect(routeOf('/projects/%E0%A4%A')).toEqual({ page: 'not-found', path: '/projects/%E0%A4%A' });
  });
});
