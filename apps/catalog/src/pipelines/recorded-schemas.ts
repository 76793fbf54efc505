/**
 * The columns earlier runs recorded for a pipeline's sources, which validation binds transforms against. Runs belong
 * to the scheduler; without it ({@link NoRecordedSchemas}, tests of the catalog alone) no run is known.
 */
import type { RecordedSchemasReply } from '@conduit/contracts';

export interface RecordedSchemas {
  /** What recent runs of the pipeline recorded, or null when that could not be learned in time. */
  latest(tenantId: string, pipelineId: string): Promise<RecordedSchemasReply | null>;
}

export const RECORDED_SCHEMAS = Symbol('RECORDED_SCHEMAS');

export class NoRecordedSchemas implements RecordedSchemas {
  latest(): Promise<RecordedSchemasReply> {
    return Promise.resolve({ sources: [] });
  }
}
