// Answers of the scheduler's and monitoring's operations: jobs, runs, metrics, alerts and run logs.
import { z } from 'zod';
import { ALERT_RULES, ALERT_SEVERITIES, ALERT_STATUSES } from '../schemas/monitoring.js';
import {
  CONCURRENCY_POLICIES,
  JOB_STATUSES,
  RUN_NODE_COLUMNS_MAX,
  RUN_STATUSES,
  RUN_TRIGGERS,
} from '../schemas/jobs.js';
import { storedDagSchema } from '../schemas/dag.js';
import { RUN_LOG_LEVELS, runErrorSchema, runNodeColumnSchema, runNodeSchema } from '../run-messages.js';
import { idOf, pageOfSchema, timestamp } from './fields.js';

const jsonObject = z.record(z.string(), z.unknown());

export const runSummarySchema = z
  .strictObject({
    id: idOf('run'),
    status: z.enum(RUN_STATUSES),
    trigger: z.enum(RUN_TRIGGERS),
    queued_at: timestamp,
    finished_at: timestamp.nullable(),
  })
  .meta({ id: 'RunSummary' });

export const jobSchema = z
  .strictObject({
    id: idOf('job'),
    name: z.string(),
    description: z.string().nullable(),
    pipeline_id: idOf('pipeline'),
    schedule: z
      .string()
      .nullable()
      .meta({ description: 'Five cron fields, or null for a job run only by hand.', example: '0 2 * * *' }),
    timezone: z.string().meta({ description: 'IANA time zone of the schedule.', example: 'Europe/Paris' }),
    status: z.enum(JOB_STATUSES),
    concurrency_policy: z.enum(CONCURRENCY_POLICIES),
    parameters: jsonObject.meta({ description: 'Defaults passed to every run.' }),
    next_run_at: timestamp.nullable().meta({ description: 'Null for a job without a schedule or a paused job.' }),
    upcoming_runs_at: z
      .array(timestamp)
      .max(5)
      .meta({
        description:
          'The next five fire times in the time zone, by the rules the scheduler fires with (a local time skipped by a ' +
          'daylight-saving change runs at the next valid minute; one that occurs twice runs once); the first is ' +
          '`next_run_at`. Empty for a job without a schedule, a paused job, or a schedule with no future date.',
      }),
    last_run: runSummarySchema.nullable(),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .meta({ id: 'Job' });

/** The executor's report of a node is the answer's node, `columns` always present (null until known). */
export const apiRunErrorSchema = runErrorSchema.meta({ id: 'RunError' });

export const apiRunNodeColumnSchema = runNodeColumnSchema
  .extend({
    type: runNodeColumnSchema.shape.type.meta({
      description:
        "DuckDB's type as SQL (e.g. `DECIMAL(12,2)`); null where rows went from PostgreSQL to PostgreSQL as CSV.",
    }),
    source_type: runNodeColumnSchema.shape.source_type.meta({
      description: "The source database's own type, where a source declared it.",
    }),
  })
  .meta({ id: 'RunNodeColumn' });

export const apiRunNodeSchema = runNodeSchema
  .extend({
    started_at: timestamp.nullable(),
    finished_at: timestamp.nullable(),
    output: jsonObject
      .nullable()
      .meta({ description: "A decision's `{ choice, reason }`; a skipped node's `{ reason }`." }),
    error: apiRunErrorSchema.nullable(),
    columns: z.array(apiRunNodeColumnSchema).max(RUN_NODE_COLUMNS_MAX).nullable().meta({
      description:
        "Its output columns (a sink's: the columns it wrote); null until the node has produced output. Never any row value.",
    }),
  })
  .meta({ id: 'RunNode' });

export const runSchema = z
  .strictObject({
    id: idOf('run'),
    job_id: idOf('job'),
    pipeline_id: idOf('pipeline'),
    pipeline_version: z.number().int().min(1),
    status: z.enum(RUN_STATUSES),
    trigger: z.enum(RUN_TRIGGERS),
    parameters: jsonObject,
    attempt: z.number().int().min(1).meta({ description: 'Goes up when another executor takes the run over.' }),
    queued_at: timestamp,
    started_at: timestamp.nullable(),
    finished_at: timestamp.nullable(),
    duration_ms: z.number().int().min(0).nullable(),
    error: apiRunErrorSchema.nullable(),
    nodes: z.array(apiRunNodeSchema),
    stats: z.strictObject({ rows_read: z.number().int().min(0), rows_written: z.number().int().min(0) }),
  })
  .meta({ id: 'Run' });

/** The DAG a run ran: the pipeline's as it was when the run was triggered, whatever the pipeline became since. */
export const runDagSchema = z
  .strictObject({
    run_id: idOf('run'),
    job_id: idOf('job'),
    pipeline_id: idOf('pipeline'),
    pipeline_version: z.number().int().min(1).meta({ description: "The pipeline's version the run ran." }),
    dag: storedDagSchema,
  })
  .meta({ id: 'RunDag' });

const count = z.number().int().min(0);
const millis = z.number().int().min(0).nullable();

export const metricsSchema = z
  .strictObject({
    job_id: idOf('job').nullable(),
    since: z.string().meta({ example: '24h' }),
    from: timestamp,
    to: timestamp,
    runs: z.strictObject({
      total: count,
      queued: count,
      running: count,
      succeeded: count,
      failed: count,
      canceled: count,
    }),
    success_rate: z
      .number()
      .min(0)
      .max(1)
      .nullable()
      .meta({ description: 'succeeded / (succeeded + failed); null when neither happened.' }),
    duration_ms: z
      .strictObject({ avg: millis, p50: millis, p95: millis, max: millis })
      .meta({ description: 'Of finished runs.' }),
    rows: z.strictObject({ read: count, written: count }),
    series: z
      .array(z.strictObject({ start: timestamp, succeeded: count, failed: count, avg_duration_ms: millis }))
      .meta({
        description: 'Buckets of a round size that fits the window, in time order.',
      }),
  })
  .meta({ id: 'Metrics' });

export const alertSchema = z
  .strictObject({
    id: idOf('alert'),
    job_id: idOf('job').nullable(),
    run_id: idOf('run').nullable(),
    webhook_id: idOf('webhook').nullable().meta({ description: 'The webhook a `webhook_disabled` alert is about.' }),
    rule: z.enum(ALERT_RULES),
    severity: z.enum(ALERT_SEVERITIES),
    status: z.enum(ALERT_STATUSES),
    message: z.string(),
    occurrences: z.number().int().min(1).meta({ description: 'Failures in a row.' }),
    first_seen_at: timestamp,
    last_seen_at: timestamp,
    resolved_at: timestamp.nullable(),
  })
  .meta({ id: 'Alert' });

export const runLogLineSchema = z
  .strictObject({
    seq: z.number().int().min(1).meta({ description: "Orders lines across attempts; a live stream's event id." }),
    ts: timestamp,
    level: z.enum(RUN_LOG_LEVELS),
    node_id: z.string().nullable(),
    message: z.string().max(8192),
  })
  .meta({ id: 'RunLogLine' });

export const jobPageSchema = pageOfSchema(jobSchema, 'JobPage');
export const runPageSchema = pageOfSchema(runSchema, 'RunPage');
export const alertPageSchema = pageOfSchema(alertSchema, 'AlertPage');
export const runLogPageSchema = pageOfSchema(runLogLineSchema, 'RunLogPage');
