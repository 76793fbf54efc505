import type { Client } from 'openapi-fetch';
import type { paths } from '../generated/api.js';
import { Paginated } from '../pagination.js';
import { ifMatchHeader, type ConditionalOptions } from '../versions.js';
import type { Job, QueryOf, RequestBody, Run } from '../types.js';
import { defined, expectNoContent, unwrap } from '../unwrap.js';
import type { PageOptions } from './list-params.js';

export interface JobListOptions extends PageOptions {
  pipelineId?: string;
  status?: QueryOf<'listJobs'>['status'];
}

export class JobsApi {
  constructor(private readonly raw: Client<paths>) {}

  list(options: JobListOptions = {}): Paginated<Job> {
    return new Paginated((cursor) =>
      unwrap(
        this.raw.GET('/v2/jobs', {
          params: {
            query: defined({
              cursor,
              limit: options.pageSize,
              pipeline_id: options.pipelineId,
              status: options.status,
            }),
          },
        }),
      ),
    );
  }

  get(jobId: string): Promise<Job> {
    return unwrap(this.raw.GET('/v2/jobs/{job_id}', { params: { path: { job_id: jobId } } }));
  }

  create(body: RequestBody<'createJob'>): Promise<Job> {
    return unwrap(this.raw.POST('/v2/jobs', { body }));
  }

  /** Replaces the job; `ifMatch` (etagOf a job answered before) makes it conditional. */
  async update(jobId: string, body: RequestBody<'updateJob'>, options: ConditionalOptions = {}): Promise<Job> {
    return unwrap(
      this.raw.PUT('/v2/jobs/{job_id}', {
        params: { path: { job_id: jobId }, header: ifMatchHeader(options) },
        body,
      }),
    );
  }

  /** Deletes the job; `ifMatch` makes it conditional. */
  async delete(jobId: string, options: ConditionalOptions = {}): Promise<void> {
    return expectNoContent(
      this.raw.DELETE('/v2/jobs/{job_id}', {
        params: { path: { job_id: jobId }, header: ifMatchHeader(options) },
      }),
    );
  }

  pause(jobId: string): Promise<Job> {
    return unwrap(this.raw.POST('/v2/jobs/{job_id}/pause', { params: { path: { job_id: jobId } } }));
  }

  resume(jobId: string): Promise<Job> {
    return unwrap(this.raw.POST('/v2/jobs/{job_id}/resume', { params: { path: { job_id: jobId } } }));
  }

  /** Trigger Run: answers the queued run (202). */
  trigger(jobId: string, body: RequestBody<'triggerRun'> = {}): Promise<Run> {
    return unwrap(this.raw.POST('/v2/jobs/{job_id}/run', { params: { path: { job_id: jobId } }, body }));
  }
}
