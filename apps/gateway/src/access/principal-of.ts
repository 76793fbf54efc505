import type { FastifyRequest } from 'fastify';
import type { Principal } from '../auth/principal.js';

declare module 'fastify' {
  interface FastifyRequest {
    principal?: Principal;
  }
}

/** The authenticated caller of a request that passed the access guard. */
export function principalOf(request: FastifyRequest): Principal {
  if (!request.principal) throw new Error('no principal on a request that needs one: is the route public?');
  return request.principal;
}
