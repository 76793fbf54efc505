import type { FastifyReply, FastifyRequest } from 'fastify';
import { type DomainError, AppError, problemDocument, statusOf } from '@conduit/contracts';
import { UNAVAILABLE_RETRY_AFTER_S } from '@conduit/service-kit';
import { wwwAuthenticate } from '../auth/www-authenticate.js';

/** Extra headers some problems carry (Retry-After, WWW-Authenticate, Allow). */
export class HeaderedError extends AppError {
  constructor(
    error: DomainError,
    readonly headers: Record<string, string>,
  ) {
    super(error.code, error.detail, error.errors, error.dependency);
  }
}

/** Writes a problem document for `error` as the response. */
export function sendProblem(request: FastifyRequest, reply: FastifyReply, error: AppError): void {
  const doc = problemDocument(error.toDomainError(), request.url.split('?')[0] ?? '/', String(request.id));
  if (error instanceof HeaderedError) reply.headers(error.headers);
  // api.md: a 429 says when to come back; the gateway's own limiter says more precisely, a service's refusal 1 s.
  if (doc.status === 429 && !reply.hasHeader('retry-after')) reply.header('retry-after', '1');
  if (doc.status === 503) {
    // Every 503 says when to come back and what class of dependency is missing (a backend service unless told).
    doc.dependency ??= 'service';
    if (!reply.hasHeader('retry-after')) reply.header('retry-after', String(UNAVAILABLE_RETRY_AFTER_S));
  }
  // Fastify closes the connection on a body over the limit while the client is still sending it, so the client
  // meets EPIPE/ECONNRESET instead of the 413. Keeping it open lets Node discard the rest and the 413 arrive.
  if (error.code === 'payload_too_large') reply.removeHeader('connection');
  // A refused bearer token brought its own challenge, with error="invalid_token" (auth.service.ts).
  if (error.code === 'unauthenticated' && !reply.hasHeader('www-authenticate'))
    reply.header('www-authenticate', wwwAuthenticate());
  reply.code(statusOf(error.code)).type('application/problem+json').send(doc);
}
