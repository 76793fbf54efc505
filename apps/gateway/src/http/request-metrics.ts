import type { FastifyInstance } from 'fastify';
import type { Registry } from 'prom-client';
import { BucketHistogram } from '@conduit/service-kit';

/**
 * `http_request_duration_seconds{method,route,status}`. route is the route pattern (`/v2/jobs/:job_id`), never the raw
 * URL, so ids do not explode the series; a request no route matched counts as `unmatched`.
 */
export function registerRequestMetrics(app: FastifyInstance, registry: Registry): void {
  // Observed on every request: a BucketHistogram, not prom-client's, whose observe hashes the labels each time.
  const durations = new BucketHistogram({
    name: 'http_request_duration_seconds',
    help: 'Duration of HTTP requests by method, route pattern and status',
    labelNames: ['method', 'route', 'status'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  app.addHook('onResponse', (request, reply, done) => {
    durations.observe(
      [request.method, request.routeOptions.url ?? 'unmatched', String(reply.statusCode)],
      reply.elapsedTime / 1000,
    );
    done();
  });
}
