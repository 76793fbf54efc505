import type { Client } from 'openapi-fetch';
import type { paths } from '../generated/api.js';
import { Paginated } from '../pagination.js';
import { ifMatchHeader, type ConditionalOptions } from '../versions.js';
import type { Project, RequestBody } from '../types.js';
import { expectNoContent, unwrap } from '../unwrap.js';
import type { PageOptions } from './list-params.js';

export class ProjectsApi {
  constructor(private readonly raw: Client<paths>) {}

  list(options: PageOptions = {}): Paginated<Project> {
    return new Paginated((cursor) =>
      unwrap(
        this.raw.GET('/v2/projects', {
          params: {
            query: { ...(cursor ? { cursor } : {}), ...(options.pageSize ? { limit: options.pageSize } : {}) },
          },
        }),
      ),
    );
  }

  get(projectId: string): Promise<Project> {
    return unwrap(this.raw.GET('/v2/projects/{project_id}', { params: { path: { project_id: projectId } } }));
  }

  create(body: RequestBody<'createProject'>): Promise<Project> {
    return unwrap(this.raw.POST('/v2/projects', { body }));
  }

  /** Replaces the project; `ifMatch` (etagOf a project answered before) makes it conditional. */
  async update(
    projectId: string,
    body: RequestBody<'updateProject'>,
    options: ConditionalOptions = {},
  ): Promise<Project> {
    return unwrap(
      this.raw.PUT('/v2/projects/{project_id}', {
        params: { path: { project_id: projectId }, header: ifMatchHeader(options) },
        body,
      }),
    );
  }

  /** Deletes the project; `ifMatch` makes it conditional. */
  async delete(projectId: string, options: ConditionalOptions = {}): Promise<void> {
    return expectNoContent(
      this.raw.DELETE('/v2/projects/{project_id}', {
        params: { path: { project_id: projectId }, header: ifMatchHeader(options) },
      }),
    );
  }
}
