import { Inject, Injectable } from '@nestjs/common';
import type { Registry } from 'prom-client';
import { performance } from 'node:perf_hooks';
import type { ClientProxy } from '@nestjs/microservices';
import type { FastifyRequest } from 'fastify';
import { type RpcContext, type RpcData, type RpcPattern, type RpcReply, AppError, isRpcReply } from '@conduit/contracts';
import { type CallOptions, rpcCall } from '@conduit/rpc-streams';
import { UNAVAILABLE_RETRY_AFTER_S } from '@conduit/service-kit';
import { HeaderedError } from '../http/problem.js';
import { METRICS_REGISTRY, RPC_CLIENT } from '../tokens.js';
import { rpcDurationHistogram, type RpcOutcome } from './rpc-metrics.js';
import { labelledObserver } from '../http/labelled-observer.js';
import { principalOf } from '../access/principal-of.js';
import { idempotencyOf } from '../idempotency/request-idempotency.js';

export type { CallOptions };

export interface BackendCallOptions extends CallOptions {
  /**
   * The call makes the request's resource (a create, Trigger Run): it carries the request's Idempotency-Key, so the
   * service keeps it on the row. Other calls a request makes (reference checks) never do.
   */
  createsResource?: boolean;
}

export interface BackendAnswer<T> {
  data: T;
  etag?: string;
}

/** Forwards an operation to the service that owns it, with the caller's context, and unwraps the reply. */
@Injectable()
export class BackendClient {
  private readonly observeDuration: (labels: [pattern: string, outcome: RpcOutcome], seconds: number) => void;

  constructor(
    @Inject(RPC_CLIENT) private readonly client: ClientProxy,
    @Inject(METRICS_REGISTRY) registry: Registry,
  ) {
    this.observeDuration = labelledObserver(rpcDurationHistogram(registry));
  }

  /** `opts.timeoutMs`: for an operation allowed longer than RPC_TIMEOUT_MS (Test Connection's own 10 s budget). */
  async call<P extends RpcPattern, T>(pattern: P, data: RpcData<P>, request: FastifyRequest, opts: BackendCallOptions = {}): Promise<BackendAnswer<T>> {
    const principal = principalOf(request);
    const idempotency = opts.createsResource ? idempotencyOf(request) : undefined;
    const ctx: RpcContext = { tenant_id: principal.tenant_id, scopes: principal.scopes, request_id: String(request.id), ...(idempotency && { idempotency }) };
    let reply: unknown;
    const started = performance.now();
    let outcome: RpcOutcome = 'failure';
    try {
      reply = await rpcCall<RpcReply<T>>(this.client, pattern, { ctx, data }, opts);
      if (isRpcReply(reply)) outcome = reply.ok ? 'ok' : 'error';
    } catch (err) {
      if ((err as Error)?.name === 'RpcTimeoutError') {
        outcome = 'timeout';
        throw new HeaderedError(
          { code: 'service_unavailable', detail: `the ${pattern.split('.')[0]} service did not answer in time`, dependency: 'service' },
          { 'retry-after': String(UNAVAILABLE_RETRY_AFTER_S) },
        );
      }
      throw err;
    } finally {
      this.observeDuration([pattern, outcome], (performance.now() - started) / 1000);
    }
    if (!isRpcReply(reply)) throw new Error(`malformed reply to ${pattern}`);
    if (!reply.ok) throw AppError.fromDomainError(reply.error);
    return reply.etag === undefined ? { data: reply.data as T } : { data: reply.data as T, etag: reply.etag };
  }
}
