/**
 * What Trigger Run reads of a job: its pipeline, concurrency policy, parameters and revision. This scheduler holds
 * what it read of the jobs whose policy is `allow`, so that their next trigger makes its run in one statement with no
 * read first (issue 18): that statement inserts only while the job is still the tenant's at the revision held
 * (`RunStateMachine.createWhileJobAt`), and every change of a job raises its revision, so a held copy is never acted
 * on once the job changed; the trigger then reads the job again. The copies are bounded in entries, bytes of
 * parameters (held as text) and age, only to bound memory.
 */
import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { isId } from '@conduit/contracts';
import { LruCopies, copyKeyOf, notFound, preparedQuery } from '@conduit/service-kit';
import type { JobEntity } from '../jobs/job.entity.js';

export type TriggeredJob = Pick<JobEntity, 'id' | 'pipelineId' | 'concurrencyPolicy' | 'parameters' | 'revision'>;

/** A job as held: its parameters as text, parsed at every use (what they weigh here is their text). */
interface HeldJob extends Omit<TriggeredJob, 'parameters'> {
  parametersText: string;
}

@Injectable()
export class TriggeredJobs {
  private readonly held = new LruCopies<HeldJob>({
    maxEntries: 10_000,
    // Two bytes a character, as V8 may store them.
    maxBytes: 16 * 1024 * 1024,
    ttlMs: 10 * 60_000,
  });

  constructor(private readonly ds: DataSource) {}

  /** The tenant's job as read, held when its policy is `allow`; a 404 when there is none. Fixed SQL. */
  async read(tenantId: string, jobId: string): Promise<TriggeredJob> {
    if (!isId('job', jobId)) throw notFound('job', jobId);
    const [row] = await preparedQuery<{
      id: string;
      pipeline_id: string;
      concurrency_policy: JobEntity['concurrencyPolicy'];
      parameters: Record<string, unknown>;
      revision: number;
    }>(
      this.ds.manager,
      `SELECT id, pipeline_id, concurrency_policy, parameters, revision FROM jobs WHERE tenant_id = $1 AND id = $2`,
      [tenantId, jobId],
    );
    if (!row) throw notFound('job', jobId);
    const job: TriggeredJob = {
      id: row.id,
      pipelineId: row.pipeline_id,
      concurrencyPolicy: row.concurrency_policy,
      parameters: row.parameters,
      revision: row.revision,
    };
    const key = copyKeyOf(tenantId, jobId);
    if (job.concurrencyPolicy === 'allow') {
      const { parameters, ...rest } = job;
      const parametersText = JSON.stringify(parameters);
      this.held.set(key, { ...rest, parametersText }, parametersText.length * 2);
    } else this.held.delete(key);
    return job;
  }

  /** The `allow` job as last read (parameters of its own), to be acted on only under its revision. */
  heldCopy(tenantId: string, jobId: string): TriggeredJob | undefined {
    const held = this.held.get(copyKeyOf(tenantId, jobId));
    if (!held) return undefined;
    const { parametersText, ...rest } = held;
    return { ...rest, parameters: JSON.parse(parametersText) as Record<string, unknown> };
  }

  /** The held copy did not take a run: the next trigger reads the job. */
  forget(tenantId: string, jobId: string): void {
    this.held.delete(copyKeyOf(tenantId, jobId));
  }
}
