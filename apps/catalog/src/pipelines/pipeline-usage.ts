/**
 * Answers whether a job still uses a pipeline (delete is then a 409 pipeline_in_use). Jobs belong to the
 * scheduler; until the catalog can ask it, {@link NoPipelineUsage} is bound and every pipeline is free.
 */
export interface PipelineUsage {
  isInUse(tenantId: string, pipelineId: string): Promise<boolean>;
}

export const PIPELINE_USAGE = Symbol('PIPELINE_USAGE');

export class NoPipelineUsage implements PipelineUsage {
  async isInUse(): Promise<boolean> {
    return false;
  }
}
