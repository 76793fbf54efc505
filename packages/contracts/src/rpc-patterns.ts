// Every RPC pattern with the schema of its request data and of the data its reply carries: the one place a pattern is
// declared. The sender validates what it sends and parses what comes back with these; the receiver validates the
// request with the same schema, and its handler's return type is checked against the response at compile time.
import { z } from 'zod';
import { jsonObjectSchema } from './schemas/common.js';
import { projectCreateSchema, projectListQuerySchema, projectUpdateSchema } from './schemas/projects.js';
import {
  pipelineCreateSchema,
  pipelineListQuerySchema,
  pipelineUpdateSchema,
  pipelineValidateSchema,
} from './schemas/pipelines.js';
import { connectorCreateSchema, connectorListQuerySchema, connectorUpdateSchema } from './schemas/connectors.js';
import { alertListQuerySchema, metricsQuerySchema, runLogQuerySchema } from './schemas/monitoring.js';
import {
  deliveryListQuerySchema,
  webhookCreateSchema,
  webhookListQuerySchema,
  webhookUpdateSchema,
} from './schemas/webhooks.js';
import {
  jobCreateSchema,
  jobListQuerySchema,
  jobUpdateSchema,
  runListQuerySchema,
  runTriggerSchema,
} from './schemas/jobs.js';
import {
  runClaimRequestSchema,
  runClaimSchema,
  runReleaseRequestSchema,
  runRenewalSchema,
  runRenewRequestSchema,
} from './run-claims.js';
import { recordedSchemasReplySchema, recordedSchemasRequestSchema } from './recorded-schemas.js';
import { connectorVersionSchema } from './run-messages.js';
import {
  connectionTestResultSchema,
  connectorPageSchema,
  connectorSchema,
  connectorTypeListSchema,
  pipelineSchema,
  pipelineValidationSchema,
  projectPageSchema,
  projectSchema,
  templateListSchema,
} from './api/catalog.js';
import {
  alertPageSchema,
  jobPageSchema,
  jobSchema,
  metricsSchema,
  runDagSchema,
  runLogLineSchema,
  runLogPageSchema,
  runPageSchema,
  runSchema,
} from './api/runs.js';
import { deliveryPageSchema, deliverySchema, webhookPageSchema, webhookSchema } from './api/access.js';

const pathId = z.string().min(1).max(5000);
/** A secret crossing services: sealed by the gateway with @conduit/secrets (`enc:v2:`; `enc:v1:` from an older gateway), never in clear. */
const sealedSecret = z
  .string()
  .regex(/^enc:v[12]:/, { message: 'must be sealed' })
  .max(4096);
const byId = z.strictObject({ id: pathId });
/** The request's If-Match, as sent: an update or delete happens only while the resource has that ETag. */
const ifMatch = z.string().max(200).optional();
const update = <S extends z.ZodType>(body: S) => z.strictObject({ id: pathId, body, if_match: ifMatch });
/** A delete of a resource that has an ETag. */
const remove = z.strictObject({ id: pathId, if_match: ifMatch });
/** What a delete answers: nothing, as JSON null (the gateway answers 204). */
const nothing = z.null();

/**
 * A pipeline as the catalog answers it: the DAG as saved. A draft may break the documented DAG rules (api/catalog.ts
 * documents those of a valid one), so the answer is parsed with a DAG that is any JSON object.
 */
const storedPipelineSchema = pipelineSchema.extend({ dag: jsonObjectSchema });
// Built without pageOfSchema: its OpenAPI id belongs to the documented page.
const storedPipelinePageSchema = z.strictObject({
  data: z.array(storedPipelineSchema),
  next_cursor: z.string().nullable(),
});

/** What `catalog.pipelines.snapshot` answers: the pipeline as a run takes it (DAG, version, whether it validates now). */
export const pipelineSnapshotSchema = z.strictObject({
  id: z.string(),
  version: z.number().int().min(1),
  dag: jsonObjectSchema,
  valid: z.boolean(),
  /** The validation errors when not valid, for the 409 pipeline_invalid detail. */
  errors: z.array(z.strictObject({ code: z.string(), message: z.string() })),
  /** The tenant's connectors the DAG references, with their versions now (the run command carries them). */
  connectors: z.array(connectorVersionSchema).max(500).optional(),
});
export type PipelineSnapshot = z.infer<typeof pipelineSnapshotSchema>;

/**
 * One of what `catalog.connectors.resolve` answers, as an array: only the tenant's connectors among the ids asked
 * for, their secret fields sealed as stored (the executor opens them in memory).
 */
export const resolvedConnectorSchema = z.strictObject({
  id: z.string(),
  type: z.string(),
  config: jsonObjectSchema,
  /** The connector's revision: executors cache the config under it. */
  version: z.number().int().min(1).optional(),
});
export type ResolvedConnector = z.infer<typeof resolvedConnectorSchema>;

/**
 * What `monitoring.logs.tail` answers: the lines after `after_seq` that match the filter, the last seq it looked at
 * (lines up to it not in `data` did not match) and whether the run has ended with nothing left.
 */
export const runLogTailSchema = z.strictObject({
  data: z.array(runLogLineSchema),
  scanned_seq: z.number().int().min(0),
  run_finished: z.boolean(),
});

/**
 * Names are `<service>.<resource>.<verb>`, and the first segment routes the message to that service's stream.
 * `response` is the data of an `ok` reply; where the service answers the public shape it is the documented schema.
 */
export const RPC = {
  'catalog.projects.create': { request: z.strictObject({ body: projectCreateSchema }), response: projectSchema },
  'catalog.projects.list': { request: z.strictObject({ query: projectListQuerySchema }), response: projectPageSchema },
  'catalog.projects.get': { request: byId, response: projectSchema },
  'catalog.projects.update': { request: update(projectUpdateSchema), response: projectSchema },
  'catalog.projects.delete': { request: remove, response: nothing },
  'catalog.templates.list': { request: z.strictObject({}), response: templateListSchema },
  'catalog.pipelines.create': {
    request: z.strictObject({ body: pipelineCreateSchema }),
    response: storedPipelineSchema,
  },
  'catalog.pipelines.list': {
    request: z.strictObject({ query: pipelineListQuerySchema }),
    response: storedPipelinePageSchema,
  },
  'catalog.pipelines.get': { request: byId, response: storedPipelineSchema },
  'catalog.pipelines.update': { request: update(pipelineUpdateSchema), response: storedPipelineSchema },
  'catalog.pipelines.delete': { request: remove, response: nothing },
  /** With `dag`: a draft, validated and not stored; without: the saved DAG, validated and the result stored. */
  'catalog.pipelines.validate': {
    request: byId.extend(pipelineValidateSchema.shape),
    response: pipelineValidationSchema,
  },
  'catalog.connectors.create': { request: z.strictObject({ body: connectorCreateSchema }), response: connectorSchema },
  'catalog.connectors.list': {
    request: z.strictObject({ query: connectorListQuerySchema }),
    response: connectorPageSchema,
  },
  'catalog.connectors.get': { request: byId, response: connectorSchema },
  'catalog.connectors.update': { request: update(connectorUpdateSchema), response: connectorSchema },
  'catalog.connectors.delete': { request: remove, response: nothing },
  'catalog.connectors.test': { request: byId, response: connectionTestResultSchema },
  'catalog.connector-types.list': { request: z.strictObject({}), response: connectorTypeListSchema },
  // Internal: not reachable from the gateway.
  'catalog.pipelines.snapshot': { request: byId, response: pipelineSnapshotSchema },
  /** Connector configs with their secrets sealed as stored, for an executor about to run a pipeline. */
  'catalog.connectors.resolve': {
    request: z.strictObject({ ids: z.array(z.string().min(1).max(64)).max(500) }),
    response: z.array(resolvedConnectorSchema),
  },

  'scheduler.jobs.create': { request: z.strictObject({ body: jobCreateSchema }), response: jobSchema },
  'scheduler.jobs.list': { request: z.strictObject({ query: jobListQuerySchema }), response: jobPageSchema },
  'scheduler.jobs.get': { request: byId, response: jobSchema },
  'scheduler.jobs.update': { request: update(jobUpdateSchema), response: jobSchema },
  'scheduler.jobs.delete': { request: remove, response: nothing },
  'scheduler.jobs.pause': { request: byId, response: jobSchema },
  'scheduler.jobs.resume': { request: byId, response: jobSchema },
  'scheduler.runs.trigger': {
    request: z.strictObject({ job_id: pathId, body: runTriggerSchema }),
    response: runSchema,
  },
  'scheduler.runs.list': {
    request: z.strictObject({ job_id: pathId, query: runListQuerySchema }),
    response: runPageSchema,
  },
  'scheduler.runs.get': { request: z.strictObject({ job_id: pathId, run_id: pathId }), response: runSchema },
  'scheduler.runs.cancel': { request: z.strictObject({ job_id: pathId, run_id: pathId }), response: runSchema },
  'scheduler.runs.retry': { request: z.strictObject({ job_id: pathId, run_id: pathId }), response: runSchema },
  // The DAG as stored with the run (a valid pipeline's when it was triggered), parsed as any JSON object, as a pipeline's.
  'scheduler.runs.dag': {
    request: z.strictObject({ job_id: pathId, run_id: pathId }),
    response: runDagSchema.extend({ dag: jsonObjectSchema }),
  },
  // Internal, executor -> scheduler: fencing of run executions (run-claims.ts).
  'scheduler.runs.claim': { request: runClaimRequestSchema, response: runClaimSchema },
  'scheduler.runs.renew': { request: runRenewRequestSchema, response: runRenewalSchema },
  'scheduler.runs.release': { request: runReleaseRequestSchema, response: z.strictObject({ released: z.boolean() }) },
  // Internal: how many jobs use a pipeline (the catalog refuses to delete one in use).
  'scheduler.jobs.usage': {
    request: z.strictObject({ pipeline_id: z.string().min(1).max(64) }),
    response: z.strictObject({ jobs: z.number().int().min(0) }),
  },
  // Internal: the columns recent runs recorded for a pipeline's sources (the catalog's validation binds SQL to them).
  'scheduler.runs.schemas': { request: recordedSchemasRequestSchema, response: recordedSchemasReplySchema },

  'monitoring.metrics.get': { request: z.strictObject({ query: metricsQuerySchema }), response: metricsSchema },
  'monitoring.alerts.list': { request: z.strictObject({ query: alertListQuerySchema }), response: alertPageSchema },
  'monitoring.logs.list': {
    request: z.strictObject({ job_id: pathId, run_id: pathId, query: runLogQuerySchema }),
    response: runLogPageSchema,
  },
  /** Internal, for live streams. */
  'monitoring.logs.tail': {
    request: z.strictObject({
      job_id: pathId,
      run_id: pathId,
      after_seq: z.number().int().min(0),
      level: runLogQuerySchema.shape.level,
      node_id: runLogQuerySchema.shape.node_id,
    }),
    response: runLogTailSchema,
  },

  'webhooks.webhooks.create': {
    request: z.strictObject({ body: webhookCreateSchema.extend({ secret: sealedSecret }) }),
    response: webhookSchema,
  },
  'webhooks.webhooks.list': { request: z.strictObject({ query: webhookListQuerySchema }), response: webhookPageSchema },
  'webhooks.webhooks.get': { request: byId, response: webhookSchema },
  'webhooks.webhooks.update': {
    request: update(webhookUpdateSchema.extend({ secret: sealedSecret.optional() })),
    response: webhookSchema,
  },
  'webhooks.webhooks.delete': { request: remove, response: nothing },
  'webhooks.webhooks.test': { request: byId, response: deliverySchema },
  'webhooks.deliveries.list': {
    request: z.strictObject({ webhook_id: pathId, query: deliveryListQuerySchema }),
    response: deliveryPageSchema,
  },
} as const satisfies Record<string, { request: z.ZodType; response: z.ZodType }>;

export type RpcPattern = keyof typeof RPC;
/** The request data of a pattern, as the handler receives it (parsed). */
export type RpcData<P extends RpcPattern> = z.infer<(typeof RPC)[P]['request']>;
/** The data of a pattern's `ok` reply, as the caller receives it (parsed). */
export type RpcResponse<P extends RpcPattern> = z.infer<(typeof RPC)[P]['response']>;

export const rpcPatterns = Object.keys(RPC) as RpcPattern[];
