/**
 * Answers whether a job still uses a pipeline (delete is then a 409 pipeline_in_use). Jobs belong to the
 * scheduler, so the running catalog binds SchedulerPipelineUsage (an RPC to `scheduler.jobs.usage`); tests of the
 * catalog alone bind {@link NoPipelineUsage}, under which every pipeline is free.
 */
export interface PipelineUsage {
  isInUse(tenantId: string, pipelineId: string): Promise<boolean>;
}

export const PIPELINE_USAGE = Symbol('PIPELINE_USAGE');

export class NoPipelineUsage implements PipelineUsage {
  isInUse(): Promise<boolean> {
    return Promise.resolve(false);
  }
}
