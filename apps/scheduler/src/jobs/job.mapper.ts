import { Tagged, type Job, type RunSummary } from '@conduit/contracts';
import { etagOf } from '@conduit/service-kit';
import type { JobEntity } from './job.entity.js';
import { nextFireTime } from '../schedules/next-fire-time.js';

/** When a job runs next by its schedule: null when paused, unscheduled, or never due. */
export function nextRunAt(row: JobEntity, now = new Date()): string | null {
  if (row.status !== 'active' || row.schedule === null) return null;
  return nextFireTime(row.schedule, row.timezone, now)?.toISOString() ?? null;
}

export function toJob(row: JobEntity, lastRun: RunSummary | null): Job {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    pipeline_id: row.pipelineId,
    schedule: row.schedule,
    timezone: row.timezone,
    status: row.status,
    concurrency_policy: row.concurrencyPolicy,
    parameters: row.parameters,
    next_run_at: nextRunAt(row),
    last_run: lastRun,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

/** The ETag covers the stored job; next_run_at and last_run move on their own and are not part of it. */
export function jobEtag(row: JobEntity): string {
  return etagOf(row.id, row.revision, row.updatedAt.toISOString());
}

export function taggedJob(row: JobEntity, lastRun: RunSummary | null): Tagged<Job> {
  return new Tagged(toJob(row, lastRun), jobEtag(row));
}
