import { z } from 'zod';
import { RUN_NODE_COLUMNS_MAX } from './schemas/jobs.js';
import { jsonObjectSchema } from './schemas/common.js';
import { runNodeColumnSchema } from './run-messages.js';

/**
 * `scheduler.runs.schemas` (catalog -> scheduler, internal): the output columns that recent runs of one pipeline
 * recorded for its source nodes, so that validation can bind transforms against them. Read-only; the scheduler
 * answers for the calling tenant's runs only.
 */
export const recordedSchemasRequestSchema = z.strictObject({ pipeline_id: z.string().min(1).max(64) });
export type RecordedSchemasRequest = z.infer<typeof recordedSchemasRequestSchema>;

/** How many of a pipeline's latest runs the scheduler looks through for each source's columns. */
export const RECORDED_SCHEMAS_RUNS = 20;

/** One source node's columns as the latest run that recorded them did. */
export const recordedSourceSchema = z.strictObject({
  node_id: z.string().min(1).max(200),
  run_id: z.string().min(1).max(64),
  /** The node as that run ran it: its columns tell about the current DAG only while the node is the same. */
  node: z.strictObject({ type: z.string().max(64), config: jsonObjectSchema }),
  columns: z.array(runNodeColumnSchema).max(RUN_NODE_COLUMNS_MAX),
});
export type RecordedSourceSchema = z.infer<typeof recordedSourceSchema>;

/** The reply: one entry per source node id that any of those runs recorded columns for. */
export const recordedSchemasReplySchema = z.strictObject({ sources: z.array(recordedSourceSchema).max(500) });
export type RecordedSchemasReply = z.infer<typeof recordedSchemasReplySchema>;
