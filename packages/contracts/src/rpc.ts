import { z } from 'zod';
import { createHash } from 'node:crypto';
import { type DomainError, AppError, isErrorCode } from './errors.js';
import { fieldErrorsOf } from './validation.js';
import { SCOPES } from './schemas/common.js';
import { projectCreateSchema, projectListQuerySchema, projectUpdateSchema } from './schemas/projects.js';
import { pipelineCreateSchema, pipelineListQuerySchema, pipelineUpdateSchema } from './schemas/pipelines.js';
import { connectorCreateSchema, connectorListQuerySchema, connectorUpdateSchema } from './schemas/connectors.js';
import { alertListQuerySchema, metricsQuerySchema, runLogQuerySchema } from './schemas/monitoring.js';
import { deliveryListQuerySchema, webhookCreateSchema, webhookListQuerySchema, webhookUpdateSchema } from './schemas/webhooks.js';
import { runClaimRequestSchema, runReleaseRequestSchema, runRenewRequestSchema } from './run-claims.js';
import { jobCreateSchema, jobListQuerySchema, jobUpdateSchema, runListQuerySchema, runTriggerSchema } from './schemas/jobs.js';
import { recordedSchemasRequestSchema } from './recorded-schemas.js';

/**
 * A client's `Idempotency-Key` as the gateway hands it to the service that creates the resource: the service keeps
 * it on the row, unique per tenant, so a retry after a timeout or a crash finds what the first request made. The
 * fingerprint is the gateway's HMAC of the request (path and body), never the body itself.
 */
export const idempotencyKeySchema = z.strictObject({
  key: z.string().regex(/^[\x21-\x7e]{1,255}$/),
  fingerprint: z.string().regex(/^[0-9a-f]{64}$/),
});
export type IdempotencyKey = z.infer<typeof idempotencyKeySchema>;

/** Who is calling: every RPC message carries it, so a service never trusts a tenant id from a body. */
export const rpcContextSchema = z.strictObject({
  tenant_id: z.string().min(1).max(64),
  scopes: z.array(z.enum(SCOPES)),
  request_id: z.string().min(1).max(128),
  /** Only on a request that creates a resource and came with an `Idempotency-Key`. */
  idempotency: idempotencyKeySchema.optional(),
  /**
   * Epoch ms after which the caller no longer waits (it has answered 503). Not sent in the envelope: the receiving
   * side fills it in from the transport's own deadline (see `@RpcRoute`), so a handler can refuse to commit late.
   */
  deadline: z.number().int().positive().optional(),
});
export type RpcContext = z.infer<typeof rpcContextSchema>;

/**
 * The caller's identity for a call a service makes on the caller's behalf (the scheduler asking the catalog for a
 * pipeline): without the idempotency key, which belongs to this service's own create, or the deadline, which the
 * transport of the new call sets for itself.
 */
export function onBehalfOf(ctx: RpcContext): RpcContext {
  return { tenant_id: ctx.tenant_id, scopes: ctx.scopes, request_id: ctx.request_id };
}

export interface RpcRequest<T> {
  ctx: RpcContext;
  data: T;
}

/** Domain errors travel back as data; the gateway turns them into problem documents. */
export type RpcReply<T> = { ok: true; data: T; etag?: string } | { ok: false; error: DomainError };

const pathId = z.string().min(1).max(5000);
/** A secret crossing services: sealed by the gateway with @conduit/secrets (`enc:v2:`; `enc:v1:` from an older gateway), never in clear. */
const sealedSecret = z.string().regex(/^enc:v[12]:/, { message: 'must be sealed' }).max(4096);
const byId = z.strictObject({ id: pathId });
const update = <S extends z.ZodType>(body: S) =>
  z.strictObject({ id: pathId, body, if_match: z.string().max(200).optional() });

/**
 * Every RPC pattern with the schema of its request data. Names are `<service>.<resource>.<verb>`, and the
 * first segment routes the message to that service's stream. Sender and receiver both use these schemas.
 */
export const RPC = {
  'catalog.projects.create': z.strictObject({ body: projectCreateSchema }),
  'catalog.projects.list': z.strictObject({ query: projectListQuerySchema }),
  'catalog.projects.get': byId,
  'catalog.projects.update': update(projectUpdateSchema),
  'catalog.projects.delete': byId,
  'catalog.templates.list': z.strictObject({}),
  'catalog.pipelines.create': z.strictObject({ body: pipelineCreateSchema }),
  'catalog.pipelines.list': z.strictObject({ query: pipelineListQuerySchema }),
  'catalog.pipelines.get': byId,
  'catalog.pipelines.update': update(pipelineUpdateSchema),
  'catalog.pipelines.delete': byId,
  'catalog.pipelines.validate': byId,
  'catalog.connectors.create': z.strictObject({ body: connectorCreateSchema }),
  'catalog.connectors.list': z.strictObject({ query: connectorListQuerySchema }),
  'catalog.connectors.get': byId,
  'catalog.connectors.update': update(connectorUpdateSchema),
  'catalog.connectors.delete': byId,
  'catalog.connectors.test': byId,
  'catalog.connector-types.list': z.strictObject({}),
  // Internal: not reachable from the gateway.
  /** The pipeline as a run takes it: DAG, version, and whether it validates now. */
  'catalog.pipelines.snapshot': byId,
  /** Connector configs with their secrets sealed as stored, for an executor about to run a pipeline. */
  'catalog.connectors.resolve': z.strictObject({ ids: z.array(z.string().min(1).max(64)).max(500) }),

  'scheduler.jobs.create': z.strictObject({ body: jobCreateSchema }),
  'scheduler.jobs.list': z.strictObject({ query: jobListQuerySchema }),
  'scheduler.jobs.get': byId,
  'scheduler.jobs.update': update(jobUpdateSchema),
  'scheduler.jobs.delete': byId,
  'scheduler.jobs.pause': byId,
  'scheduler.jobs.resume': byId,
  'scheduler.runs.trigger': z.strictObject({ job_id: pathId, body: runTriggerSchema }),
  'scheduler.runs.list': z.strictObject({ job_id: pathId, query: runListQuerySchema }),
  'scheduler.runs.get': z.strictObject({ job_id: pathId, run_id: pathId }),
  'scheduler.runs.cancel': z.strictObject({ job_id: pathId, run_id: pathId }),
  // Internal, executor -> scheduler: fencing of run executions (run-claims.ts).
  'scheduler.runs.claim': runClaimRequestSchema,
  'scheduler.runs.renew': runRenewRequestSchema,
  'scheduler.runs.release': runReleaseRequestSchema,
  // Internal: how many jobs use a pipeline (the catalog refuses to delete one in use).
  'scheduler.jobs.usage': z.strictObject({ pipeline_id: z.string().min(1).max(64) }),
  // Internal: the columns recent runs recorded for a pipeline's sources (the catalog's validation binds SQL to them).
  'scheduler.runs.schemas': recordedSchemasRequestSchema,

  'monitoring.metrics.get': z.strictObject({ query: metricsQuerySchema }),
  'monitoring.alerts.list': z.strictObject({ query: alertListQuerySchema }),
  'monitoring.logs.list': z.strictObject({ job_id: pathId, run_id: pathId, query: runLogQuerySchema }),
  /** Internal, for live streams: lines after `after_seq` and whether the run has ended. */
  'monitoring.logs.tail': z.strictObject({
    job_id: pathId,
    run_id: pathId,
    after_seq: z.number().int().min(0),
    level: runLogQuerySchema.shape.level,
    node_id: runLogQuerySchema.shape.node_id,
  }),

  'webhooks.webhooks.create': z.strictObject({ body: webhookCreateSchema.extend({ secret: sealedSecret }) }),
  'webhooks.webhooks.list': z.strictObject({ query: webhookListQuerySchema }),
  'webhooks.webhooks.get': byId,
  'webhooks.webhooks.update': update(webhookUpdateSchema.extend({ secret: sealedSecret.optional() })),
  'webhooks.webhooks.delete': byId,
  'webhooks.webhooks.test': byId,
  'webhooks.deliveries.list': z.strictObject({ webhook_id: pathId, query: deliveryListQuerySchema }),
} as const;

/** What `catalog.pipelines.snapshot` answers. */
export interface PipelineSnapshot {
  id: string;
  version: number;
  dag: Record<string, unknown>;
  valid: boolean;
  /** The validation errors when not valid, for the 409 pipeline_invalid detail. */
  errors: { code: string; message: string }[];
}

/**
 * What `catalog.connectors.resolve` answers, as an array: only the tenant's connectors among the ids asked for, their
 * secret fields sealed as stored (the executor opens them in memory).
 */
export interface ResolvedConnector {
  id: string;
  type: string;
  config: Record<string, unknown>;
}

export type RpcPattern = keyof typeof RPC;
export type RpcData<P extends RpcPattern> = z.infer<(typeof RPC)[P]>;

export const rpcPatterns = Object.keys(RPC) as RpcPattern[];

/** The service that owns a pattern: its first segment. */
export function serviceOf(pattern: string): string {
  const dot = pattern.indexOf('.');
  return dot < 0 ? pattern : pattern.slice(0, dot);
}

// Built once: zod compiles a schema on its first parse, which is far dearer than the parse itself.
const rpcEnvelopeSchema = z.strictObject({ ctx: rpcContextSchema, data: z.unknown() });

/** A handler's answer with the resource's ETag, for GET and PUT. */
export class Tagged<R> {
  constructor(
    readonly data: R,
    readonly etag: string,
  ) {}
}

/** The data a handler's answer carries, with or without an ETag. */
export type Untagged<R> = R extends Tagged<infer D> ? D : R;

/** A strong ETag from the parts that change whenever the resource does (id, updated_at, version). */
export function etagOf(...parts: (string | number)[]): string {
  return `"${createHash('sha256').update(parts.join('|')).digest('base64url').slice(0, 22)}"`;
}

/**
 * Receiver side: validates the message, runs the handler, and answers a reply envelope. Domain errors become
 * data; anything else is logged by the caller-provided hook and answered as `internal` without its details.
 */
export async function handleRpc<P extends RpcPattern, R>(
  pattern: P,
  message: unknown,
  handler: (data: RpcData<P>, ctx: RpcContext) => Promise<R>,
  onUnexpected: (err: unknown) => void,
): Promise<RpcReply<Untagged<R>>> {
  try {
    const envelope = rpcEnvelopeSchema.safeParse(message);
    if (!envelope.success) throw new AppError('internal', 'malformed RPC envelope');
    const parsed = RPC[pattern].safeParse(envelope.data.data, { reportInput: true });
    if (!parsed.success) {
      // The gateway validates with the same schemas first, so this only happens for a foreign or stale caller.
      throw new AppError('validation_failed', 'invalid request', fieldErrorsOf(parsed.error));
    }
    const result = await handler(parsed.data as RpcData<P>, envelope.data.ctx);
    if (result instanceof Tagged) return { ok: true, data: result.data as Untagged<R>, etag: result.etag };
    return { ok: true, data: result as Untagged<R> };
  } catch (err) {
    if (err instanceof AppError) return { ok: false, error: err.toDomainError() };
    onUnexpected(err);
    return { ok: false, error: { code: 'internal', detail: 'internal error' } };
  }
}

/** Caller side: checks that an answer is a reply envelope (a foreign answer is an internal error). */
export function isRpcReply(value: unknown): value is RpcReply<unknown> {
  if (!value || typeof value !== 'object') return false;
  const v = value as { ok?: unknown; error?: { code?: unknown } };
  if (v.ok === true) return 'data' in v;
  return v.ok === false && !!v.error && isErrorCode(v.error.code);
}
