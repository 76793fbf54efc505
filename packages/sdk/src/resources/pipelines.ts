import type { Client } from 'openapi-fetch';
import type { paths } from '../generated/api.js';
import { Paginated } from '../pagination.js';
import { ifMatchHeader, type ConditionalOptions } from '../versions.js';
import type { Pipeline, PipelineValidation, RequestBody } from '../types.js';
import { defined, expectNoContent, unwrap } from '../unwrap.js';
import type { PageOptions } from './list-params.js';

export interface PipelineListOptions extends PageOptions {
  projectId?: string;
}

export class PipelinesApi {
  constructor(private readonly raw: Client<paths>) {}

  list(options: PipelineListOptions = {}): Paginated<Pipeline> {
    return new Paginated((cursor) =>
      unwrap(
        this.raw.GET('/v2/pipelines', {
          params: { query: defined({ cursor, limit: options.pageSize, project_id: options.projectId }) },
        }),
      ),
    );
  }

  get(pipelineId: string): Promise<Pipeline> {
    return unwrap(this.raw.GET('/v2/pipelines/{pipeline_id}', { params: { path: { pipeline_id: pipelineId } } }));
  }

  create(body: RequestBody<'createPipeline'>): Promise<Pipeline> {
    return unwrap(this.raw.POST('/v2/pipelines', { body }));
  }

  /** Replaces the pipeline; `ifMatch` (etagOf a pipeline answered before) makes it conditional. */
  async update(
    pipelineId: string,
    body: RequestBody<'updatePipeline'>,
    options: ConditionalOptions = {},
  ): Promise<Pipeline> {
    return unwrap(
      this.raw.PUT('/v2/pipelines/{pipeline_id}', {
        params: { path: { pipeline_id: pipelineId }, header: ifMatchHeader(options) },
        body,
      }),
    );
  }

  /** Deletes the pipeline; `ifMatch` makes it conditional. */
  async delete(pipelineId: string, options: ConditionalOptions = {}): Promise<void> {
    return expectNoContent(
      this.raw.DELETE('/v2/pipelines/{pipeline_id}', {
        params: { path: { pipeline_id: pipelineId }, header: ifMatchHeader(options) },
      }),
    );
  }

  /**
   * Validates the saved DAG and stores the result; with `{ dag }`, validates that draft instead and stores nothing
   * (the pipeline and its stored validation stay as they are).
   */
  validate(pipelineId: string, body?: RequestBody<'validatePipeline'>): Promise<PipelineValidation> {
    return unwrap(
      this.raw.POST('/v2/pipelines/{pipeline_id}/validate', {
        params: { path: { pipeline_id: pipelineId } },
        ...(body === undefined ? {} : { body }),
      }),
    );
  }
}
