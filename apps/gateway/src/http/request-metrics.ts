import type { FastifyInstance } from 'fastify';
import { Histogram, type Registry } from 'prom-client';
import { labelledObserver } from './labelled-observer.js';

/**
 * `http_request_duration_seconds{method,route,status}`. route is the route pattern (`/v2/jobs/:job_id`), never the raw
 * URL, so ids do not explode the series; a request no route matched counts as `unmatched`.
 */
export function registerRequestMetrics(app: FastifyInstance, registry: Registry): void {
  const durations = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Duration of HTTP requests by method, route pattern and status',
    labelNames: ['method', 'route', 'status'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  const observe = labelledObserver(durations);
  app.addHook('onResponse', (request, reply, done) => {
    observe(
      [request.method, request.routeOptions.url ?? 'unmatched', String(reply.statusCode)],
      reply.elapsedTime / 1000,
    );
    done();
  });
}
