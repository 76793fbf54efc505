import { z } from 'zod';
import { checkCron, isTimeZone } from '../cron.js';
import { descriptionSchema, idFilterSchema, idRefSchema, jsonObjectSchema, nameSchema } from './common.js';
import { pageQueryShape } from '../pagination.js';

export const CONCURRENCY_POLICIES = ['allow', 'forbid', 'replace'] as const;
export type ConcurrencyPolicy = (typeof CONCURRENCY_POLICIES)[number];
export const JOB_STATUSES = ['active', 'paused'] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];

/** Five cron fields, or null (absent) for a job that runs only when triggered. */
export const scheduleSchema = z
  .string()
  .max(200)
  .superRefine((value, ctx) => {
    const problem =
      value.trim() === '' ? 'the schedule is empty; send null for a job run only by hand' : checkCron(value);
    if (problem) ctx.addIssue({ code: 'custom', message: problem, params: { code: 'invalid_cron' } });
  })
  .nullable();

export const timezoneSchema = z
  .string()
  .max(64)
  .refine(isTimeZone, { message: 'not a known IANA time zone', params: { code: 'invalid_timezone' } });

/**
 * What a job's `parameters`, and a trigger's, hold at most as JSON text (UTF-8 bytes, as JSON.stringify writes them):
 * a run stores the two merged (at most twice this), and List Jobs and List Runs answer up to 200 of them a page.
 */
export const PARAMETERS_MAX_BYTES = 64 * 1024;

/** A job's or a trigger's parameters: any JSON object of at most PARAMETERS_MAX_BYTES as JSON text. */
export const parametersSchema = jsonObjectSchema
  .superRefine((value, ctx) => {
    // At most 3 bytes a UTF-16 unit: text short enough is not measured again.
    const text = JSON.stringify(value);
    if (text.length * 3 <= PARAMETERS_MAX_BYTES) return;
    const bytes = Buffer.byteLength(text);
    if (bytes > PARAMETERS_MAX_BYTES)
      ctx.addIssue({
        code: 'custom',
        message: `must be at most ${PARAMETERS_MAX_BYTES} bytes (64 KiB) as JSON text (got ${bytes})`,
        params: { code: 'too_long' },
      });
  })
  .meta({ description: 'A JSON object of at most 64 KiB (65536 bytes) as JSON text.' });

export const jobCreateSchema = z.strictObject({
  name: nameSchema,
  pipeline_id: idRefSchema,
  schedule: scheduleSchema.optional(),
  description: descriptionSchema.optional(),
  timezone: timezoneSchema.default('UTC'),
  concurrency_policy: z.enum(CONCURRENCY_POLICIES).default('forbid'),
  /** Defaults passed to every run; a trigger's own parameters override them key by key. */
  parameters: parametersSchema.default({}),
});
export type JobCreate = z.infer<typeof jobCreateSchema>;

/** PUT replaces every mutable field; status changes through pause and resume. */
export const jobUpdateSchema = jobCreateSchema;
export type JobUpdate = JobCreate;

export const jobListQuerySchema = z.strictObject({
  ...pageQueryShape,
  pipeline_id: idFilterSchema('pipeline').optional(),
  status: z.enum(JOB_STATUSES).optional(),
});
export type JobListQuery = z.infer<typeof jobListQuerySchema>;

export interface RunSummary {
  id: string;
  status: RunStatus;
  trigger: RunTrigger;
  queued_at: string;
  finished_at: string | null;
}

export interface Job {
  id: string;
  name: string;
  description: string | null;
  pipeline_id: string;
  schedule: string | null;
  timezone: string;
  status: JobStatus;
  concurrency_policy: ConcurrencyPolicy;
  parameters: Record<string, unknown>;
  next_run_at: string | null;
  /** The next five fire times, the first being `next_run_at`; empty when there is none. */
  upcoming_runs_at: string[];
  last_run: RunSummary | null;
  created_at: string;
  updated_at: string;
}

/** The DAG a run ran (Get Run DAG): the pipeline's as it was when the run was triggered. */
export interface RunDag {
  run_id: string;
  job_id: string;
  pipeline_id: string;
  pipeline_version: number;
  dag: Record<string, unknown>;
}

export const RUN_STATUSES = ['queued', 'running', 'succeeded', 'failed', 'canceled'] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];
export const FINAL_RUN_STATUSES: readonly RunStatus[] = ['succeeded', 'failed', 'canceled'];
export const RUN_TRIGGERS = ['manual', 'schedule', 'retry'] as const;
export type RunTrigger = (typeof RUN_TRIGGERS)[number];
export const NODE_STATUSES = ['pending', 'running', 'succeeded', 'failed', 'skipped', 'canceled'] as const;
export type NodeStatus = (typeof NODE_STATUSES)[number];

export const runTriggerSchema = z.strictObject({
  /** Override the job's parameters key by key for this run. */
  parameters: parametersSchema.optional(),
});
export type RunTriggerBody = z.infer<typeof runTriggerSchema>;

export const runListQuerySchema = z.strictObject({
  ...pageQueryShape,
  status: z.enum(RUN_STATUSES).optional(),
});
export type RunListQuery = z.infer<typeof runListQuerySchema>;

export interface RunError {
  message: string;
  node_id?: string;
  code?: string;
}

/** Bounds of a node's reported columns: a run's status describes its data's shape, never its size or its values. */
export const RUN_NODE_COLUMNS_MAX = 1000;
export const RUN_NODE_COLUMN_NAME_MAX = 256;
export const RUN_NODE_COLUMN_TYPE_MAX = 256;

/** One column of a node's output (Get Run Status). */
export interface RunNodeColumn {
  name: string;
  /** DuckDB's type as SQL (e.g. `DECIMAL(12,2)`); null where the data passed as CSV without a DuckDB table. */
  type: string | null;
  /** The source database's own type, where a source's driver declared it (e.g. `numeric(12,2)`). */
  source_type?: string;
}

export interface RunNode {
  id: string;
  type: string;
  status: NodeStatus;
  started_at: string | null;
  finished_at: string | null;
  attempts: number;
  rows_in: number;
  rows_out: number;
  output: Record<string, unknown> | null;
  error: RunError | null;
  /** The node's output columns (a sink's: the columns it wrote); null until the node has produced output. */
  columns: RunNodeColumn[] | null;
}

export interface Run {
  id: string;
  job_id: string;
  pipeline_id: string;
  pipeline_version: number;
  status: RunStatus;
  trigger: RunTrigger;
  parameters: Record<string, unknown>;
  attempt: number;
  queued_at: string;
  started_at: string | null;
  finished_at: string | null;
  duration_ms: number | null;
  error: RunError | null;
  nodes: RunNode[];
  stats: { rows_read: number; rows_written: number };
}
