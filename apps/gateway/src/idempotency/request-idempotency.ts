import type { FastifyRequest } from 'fastify';
import type { IdempotencyKey } from '@conduit/contracts';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the IdempotencyInterceptor on a POST that came with an Idempotency-Key. */
    idempotency?: IdempotencyKey;
  }
}

/** The request's Idempotency-Key and fingerprint, for the service that creates the resource; undefined without one. */
export function idempotencyOf(request: FastifyRequest): IdempotencyKey | undefined {
  return request.idempotency;
}
