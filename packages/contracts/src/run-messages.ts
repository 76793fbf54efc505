import { z } from 'zod';
import {
  NODE_STATUSES,
  RUN_NODE_COLUMN_NAME_MAX,
  RUN_NODE_COLUMN_TYPE_MAX,
  RUN_NODE_COLUMNS_MAX,
  RUN_STATUSES,
  RUN_TRIGGERS,
} from './schemas/jobs.js';
import { jsonObjectSchema } from './schemas/common.js';

/**
 * Messages of the run lifecycle that cross processes through BullMQ queues and Redis channels.
 * Each is validated where it is received with the schema that typed it where it was sent.
 */

const id = z.string().min(1).max(64);
const timestamp = z.string().min(1).max(40);

/** A connector a run's DAG uses, at the version (the catalog's revision) the catalog knew it at the trigger. */
export const connectorVersionSchema = z.strictObject({ id, version: z.number().int().min(1) });
export type ConnectorVersion = z.infer<typeof connectorVersionSchema>;

/** Queue `runs` (scheduler -> executor), job id = run id. The DAG is the snapshot taken at trigger time. */
export const runCommandSchema = z.strictObject({
  run_id: id,
  tenant_id: id,
  job_id: id,
  pipeline_id: id,
  pipeline_version: z.number().int().min(1),
  dag: jsonObjectSchema,
  parameters: jsonObjectSchema,
  trigger: z.enum(RUN_TRIGGERS),
  /**
   * The DAG's connectors as of the trigger: an executor holding each at this version or newer asks the catalog for
   * none of them. Absent (a run enqueued again by the reaper, an older scheduler): every connector is resolved.
   */
  connectors: z.array(connectorVersionSchema).max(500).optional(),
});
export type RunCommand = z.infer<typeof runCommandSchema>;

/**
 * Redis pub/sub channel (after the deployment's key prefix) on which the catalog announces, after its commit, that a
 * connector was updated (`version`: its new revision) or deleted (`version`: null). Executors drop their cached copy.
 */
export const CONNECTORS_CHANGED_CHANNEL = 'connectors:changed';
export const connectorChangedSchema = z.strictObject({
  tenant_id: id,
  connector_id: id,
  version: z.number().int().min(1).nullable(),
});
export type ConnectorChanged = z.infer<typeof connectorChangedSchema>;

/**
 * Prefix (after the deployment's key prefix) of the Redis keys of each tenant's catalog generation and pending mark
 * (service-kit `TenantGenerations`): the catalog marks a change of the tenant's pipelines or connectors pending before
 * its commit and bumps the generation after it; the scheduler reads the generation at each trigger and uses a
 * pipeline snapshot it holds only while the generation is the one it read before asking the catalog for that snapshot.
 */
export const CATALOG_GENERATION_KEY_PREFIX = 'catalog:generation:';

/** Redis pub/sub channel (after the deployment's key prefix) on which the scheduler asks executors to stop a run. */
export const RUN_CANCEL_CHANNEL = 'runs:cancel';
export const runCancelSchema = z.strictObject({ run_id: id });
export type RunCancel = z.infer<typeof runCancelSchema>;

/** Characters of a run or node error message; an executor cuts a longer one before reporting it. */
export const RUN_ERROR_MESSAGE_MAX = 8192;

export const runErrorSchema = z.strictObject({
  message: z.string().max(RUN_ERROR_MESSAGE_MAX),
  node_id: z.string().max(200).optional(),
  code: z.string().max(64).optional(),
});

export const runNodeColumnSchema = z.strictObject({
  name: z.string().max(RUN_NODE_COLUMN_NAME_MAX),
  type: z.string().max(RUN_NODE_COLUMN_TYPE_MAX).nullable(),
  source_type: z.string().max(RUN_NODE_COLUMN_TYPE_MAX).optional(),
});

export const runNodeSchema = z.strictObject({
  id: z.string().max(200),
  type: z.string().max(64),
  status: z.enum(NODE_STATUSES),
  started_at: timestamp.nullable(),
  finished_at: timestamp.nullable(),
  attempts: z.number().int().min(0),
  rows_in: z.number().int().min(0),
  rows_out: z.number().int().min(0),
  output: jsonObjectSchema.nullable(),
  error: runErrorSchema.nullable(),
  /** Absent from an executor older than the field: the scheduler then keeps what it knew. */
  columns: z.array(runNodeColumnSchema).max(RUN_NODE_COLUMNS_MAX).nullable().optional(),
});

export const runStatsSchema = z.strictObject({
  rows_read: z.number().int().min(0),
  rows_written: z.number().int().min(0),
});

const reportBase = {
  /** Unique per report: consumers ignore one they have already applied. */
  event_id: id,
  run_id: id,
  tenant_id: id,
  /** Which execution of the run (1 for the first; a run taken over after an executor died has a higher one). */
  attempt: z.number().int().min(1),
  /** The epoch of the claim this execution holds (run-claims.ts); the scheduler refuses a report of any other. */
  epoch: z.number().int().min(0),
  at: timestamp,
};

/** Queue `events.scheduler` (executor -> scheduler): what an executor did with a run. */
export const runReportSchema = z.discriminatedUnion('type', [
  z.strictObject({ ...reportBase, type: z.literal('run.started'), executor_id: z.string().max(200) }),
  z.strictObject({ ...reportBase, type: z.literal('run.node'), node: runNodeSchema }),
  z.strictObject({
    ...reportBase,
    type: z.literal('run.finished'),
    status: z.enum(['succeeded', 'failed', 'canceled']),
    error: runErrorSchema.nullable(),
    stats: runStatsSchema,
    nodes: z.array(runNodeSchema),
  }),
]);
export type RunReport = z.infer<typeof runReportSchema>;

/**
 * Queues `events.monitoring` and `events.webhooks` (scheduler -> consumers): a run changed state. The scheduler,
 * the only writer of runs, publishes these through its outbox, so only accepted transitions are announced.
 */
export const runEventSchema = z.strictObject({
  event_id: id,
  type: z.enum(['run.queued', 'run.started', 'run.succeeded', 'run.failed', 'run.canceled']),
  created_at: timestamp,
  tenant_id: id,
  run: z.strictObject({
    id,
    job_id: id,
    pipeline_id: id,
    pipeline_version: z.number().int().min(1),
    status: z.enum(RUN_STATUSES),
    trigger: z.enum(RUN_TRIGGERS),
    attempt: z.number().int().min(1),
    queued_at: timestamp,
    started_at: timestamp.nullable(),
    finished_at: timestamp.nullable(),
    duration_ms: z.number().int().min(0).nullable(),
    error: runErrorSchema.nullable(),
    stats: runStatsSchema,
  }),
});
export type RunEvent = z.infer<typeof runEventSchema>;

export const RUN_LOG_LEVELS = ['debug', 'info', 'warn', 'error'] as const;
export const LOG_MESSAGE_MAX_BYTES = 8192;

/** Queue `logs` (executor -> monitoring): a batch of run log lines, in order within the attempt. */
export const runLogBatchSchema = z.strictObject({
  run_id: id,
  tenant_id: id,
  job_id: id,
  attempt: z.number().int().min(1),
  lines: z
    .array(
      z.strictObject({
        /** Position of the line within the attempt, from 0. */
        n: z.number().int().min(0),
        ts: timestamp,
        level: z.enum(RUN_LOG_LEVELS),
        node_id: z.string().max(200).nullable(),
        message: z.string().max(LOG_MESSAGE_MAX_BYTES),
      }),
    )
    .min(1)
    .max(1000),
});
export type RunLogBatch = z.infer<typeof runLogBatchSchema>;
