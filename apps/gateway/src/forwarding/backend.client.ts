import { Inject, Injectable } from '@nestjs/common';
import type { Registry } from 'prom-client';
import { performance } from 'node:perf_hooks';
import type { ClientProxy } from '@nestjs/microservices';
import type { FastifyRequest } from 'fastify';
import type { RpcContext, RpcData, RpcPattern } from '@conduit/contracts';
import { type CallOptions, type RpcAnswer, RpcClient, RpcRemoteError, RpcTimeoutError } from '@conduit/rpc-streams';
import { type BucketHistogram, UNAVAILABLE_RETRY_AFTER_S } from '@conduit/service-kit';
import { HeaderedError } from '../http/problem.js';
import { GATEWAY_CONFIG, METRICS_REGISTRY, RPC_CLIENT } from '../tokens.js';
import type { GatewayConfig } from '../config.js';
import { rpcDurationHistogram, type RpcOutcome } from './rpc-metrics.js';
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

export type BackendAnswer<P extends RpcPattern> = RpcAnswer<P>;

/** Forwards an operation to the service that owns it, with the caller's context, and unwraps the reply. */
@Injectable()
export class BackendClient {
  private readonly durations: BucketHistogram<'pattern' | 'outcome'>;
  private readonly rpc: RpcClient;

  constructor(
    @Inject(RPC_CLIENT) client: ClientProxy,
    @Inject(METRICS_REGISTRY) registry: Registry,
    @Inject(GATEWAY_CONFIG) config: Pick<GatewayConfig, 'NODE_ENV'>,
  ) {
    this.durations = rpcDurationHistogram(registry);
    // Replies are parsed with their response schemas in development and tests, where a service answering off the
    // contract must show; in production they pass on unchecked: parsing a page of runs costs more CPU than the
    // rest of its request (docs/rpc.md).
    this.rpc = new RpcClient(client, { parseReplies: config.NODE_ENV !== 'production' });
  }

  /** `opts.timeoutMs`: for an operation allowed longer than RPC_TIMEOUT_MS (Test Connection's own 10 s budget). */
  async call<P extends RpcPattern>(
    pattern: P,
    data: RpcData<P>,
    request: FastifyRequest,
    opts: BackendCallOptions = {},
  ): Promise<BackendAnswer<P>> {
    const principal = principalOf(request);
    const idempotency = opts.createsResource ? idempotencyOf(request) : undefined;
    const ctx: RpcContext = {
      tenant_id: principal.tenant_id,
      scopes: principal.scopes,
      request_id: String(request.id),
      ...(idempotency && { idempotency }),
    };
    const started = performance.now();
    let outcome: RpcOutcome = 'failure';
    try {
      const answer = await this.rpc.answer(
        pattern,
        { ctx, data },
        opts.timeoutMs === undefined ? {} : { timeoutMs: opts.timeoutMs },
      );
      outcome = 'ok';
      return answer;
    } catch (err) {
      // A problem the service answered goes on as it answered it (RpcRemoteError is an AppError).
      if (err instanceof RpcRemoteError && !err.malformed) outcome = 'error';
      if (err instanceof RpcTimeoutError) {
        outcome = 'timeout';
        throw new HeaderedError(
          {
            code: 'service_unavailable',
            detail: `the ${pattern.split('.')[0]} service did not answer in time`,
            dependency: 'service',
          },
          { 'retry-after': String(UNAVAILABLE_RETRY_AFTER_S) },
        );
      }
      throw err;
    } finally {
      this.durations.observe([pattern, outcome], (performance.now() - started) / 1000);
    }
  }
}
