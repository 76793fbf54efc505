import type { FastifyInstance } from 'fastify';

/**
 * Graceful shutdown: once the server starts closing (SIGTERM), requests in flight still get their answers, but
 * each answer ends its connection. Without this, a client's keep-alive connection that was busy when closing
 * began stays open after its answer, and close() waits for Fastify's keep-alive timeout (72 s) until the
 * orchestrator kills the process.
 */
export function registerDrainOnClose(app: FastifyInstance): void {
  let draining = false;
  app.addHook('preClose', (done) => {
    draining = true;
    done();
  });
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (draining) reply.header('connection', 'close');
    done(null, payload);
  });
  app.addHook('onResponse', (_request, _reply, done) => {
    // An answer already on its way when closing began went out with keep-alive: drop its connection once idle.
    if (draining) setImmediate(() => app.server.closeIdleConnections());
    done();
  });
}
