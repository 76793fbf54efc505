import { z } from 'zod';
import { type DomainError, AppError, isErrorCode } from './errors.js';
import { fieldErrorsOf } from './validation.js';
import { SCOPES } from './schemas/common.js';
import { RPC, type RpcData, type RpcPattern, type RpcResponse } from './rpc-patterns.js';
import { isUsualEnvelope } from './rpc-envelope-check.js';

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

/** The service that owns a pattern: its first segment. */
export function serviceOf(pattern: string): string {
  const dot = pattern.indexOf('.');
  return dot < 0 ? pattern : pattern.slice(0, dot);
}

// Built once: zod compiles a schema on its first parse, which is far dearer than the parse itself.
const rpcEnvelopeSchema = z.strictObject({ ctx: rpcContextSchema, data: z.unknown() });

/** The envelope as the schema parses it, or undefined when it is malformed. */
function parsedEnvelope(message: unknown): RpcRequest<unknown> | undefined {
  const envelope = rpcEnvelopeSchema.safeParse(message);
  return envelope.success ? { ctx: envelope.data.ctx, data: envelope.data.data } : undefined;
}

/** A handler's answer with the resource's ETag, for GET and PUT. */
export class Tagged<R> {
  constructor(
    readonly data: R,
    readonly etag: string,
  ) {}
}

/** The data a handler's answer carries, with or without an ETag. */
export type Untagged<R> = R extends Tagged<infer D> ? D : R;

/** What a handler of pattern P may return: the pattern's response data, or that data with its ETag. */
export type RpcResult<P extends RpcPattern> = RpcResponse<P> | Tagged<RpcResponse<P>>;

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
    const envelope = isUsualEnvelope(message) ? message : parsedEnvelope(message);
    if (!envelope) throw new AppError('internal', 'malformed RPC envelope');
    const parsed = RPC[pattern].request.safeParse(envelope.data, { reportInput: true });
    if (!parsed.success) {
      // The gateway validates with the same schemas first, so this only happens for a foreign or stale caller.
      throw new AppError('validation_failed', 'invalid request', fieldErrorsOf(parsed.error));
    }
    const result = await handler(parsed.data as RpcData<P>, envelope.ctx);
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
