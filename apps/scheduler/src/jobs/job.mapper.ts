import { Tagged, type Job, type RunSummary } from '@conduit/contracts';
import { etagOf } from '@conduit/service-kit';
import type { JobEntity } from './job.entity.js';
import { upcomingFires } from '../schedules/upcoming-fires.js';

/**
 * When a job runs next by its schedule (`next_run_at` is the first): empty when paused, unscheduled, or never due.
 * The API answers them so that a client need not repeat the scheduler's daylight-saving rules.
 */
export function upcomingRunsAt(row: JobEntity, now = new Date()): string[] {
  if (row.status !== 'active' || row.schedule === null) return [];
  return upcomingFires(row.schedule, row.timezone, now);
}

export function toJob(row: JobEntity, lastRun: RunSummary | null): Job {
  const upcoming = upcomingRunsAt(row);
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
    next_run_at: upcoming[0] ?? null,
    upcoming_runs_at: upcoming,
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
