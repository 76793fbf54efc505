import type { FastifyInstance } from 'fastify';
import type { AccessLog } from '@conduit/service-kit';

/**
 * One line per request, with its id and outcome. Headers and bodies are never logged: they carry
 * credentials and connector secrets.
 */
export function registerRequestLog(app: FastifyInstance, logger: AccessLog): void {
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', String(request.id));
    done();
  });
  app.addHook('onResponse', (request, reply, done) => {
    const line = {
      request_id: request.id,
      method: request.method,
      path: request.url.split('?')[0],
      status: reply.statusCode,
      duration_ms: Math.round(reply.elapsedTime),
      tenant_id: request.principal?.tenant_id,
    };
    if (reply.statusCode >= 500) logger.error(line, 'request failed');
    else logger.info(line, 'request');
    done();
  });
}
