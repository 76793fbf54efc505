import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/** Who is calling and within their rates (AccessGuard.admit): what a body is worth reading for. */
export type Admission = (request: FastifyRequest, reply: FastifyReply) => Promise<unknown>;

/**
 * Admits a request that carries a body before the body is read and parsed: a megabyte of JSON costs tens of
 * milliseconds to parse and check, which nobody without a credential (or past their rate) may spend. Every route that
 * takes a body needs a credential (the public ones are GETs), and a body sent to no route is never parsed (the JSON
 * parser skips it: a 404 or 405 does not read it). The guard then only checks the route's scope. `admitWith` is
 * called once Nest has built the guard; until then nothing is admitted early.
 */
export function registerAdmitBeforeBody(app: FastifyInstance): { admitWith: (admission: Admission) => void } {
  let admission: Admission | undefined;
  app.addHook('preParsing', async (request, reply, payload) => {
    if (admission && request.routeOptions.url !== undefined && carriesBody(request)) await admission(request, reply);
    return payload;
  });
  return { admitWith: (a) => (admission = a) };
}

/** What Fastify reads as a body: a length other than 0, or a chunked one. */
function carriesBody(request: FastifyRequest): boolean {
  const length = request.headers['content-length'];
  return (length !== undefined && length !== '0') || request.headers['transfer-encoding'] !== undefined;
}
