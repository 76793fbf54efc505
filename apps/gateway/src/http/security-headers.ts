import type { FastifyInstance } from 'fastify';

/**
 * Swagger UI (/docs) shares the console's origin, where the console keeps its key (sessionStorage): it may not be
 * framed (clickjacking), nor its files sniffed. Its scripts are the bundle's own files (no inline script).
 */
const DOCS_HEADERS = {
  'content-security-policy': "frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
};

/**
 * Headers by path, set before any route runs (a route may still set its own, as the log stream does its
 * Cache-Control): the API's answers are a tenant's data and never kept by a browser or a proxy (`no-store`; an ETag
 * still serves a client's own If-None-Match), the published document aside.
 */
export function registerSecurityHeaders(app: FastifyInstance): void {
  app.addHook('onRequest', (request, reply, done) => {
    // The route Fastify matched where there is one, as the access guard decides (`/%762/projects` is /v2 too).
    const path = request.routeOptions.url ?? request.url;
    if (path.startsWith('/v2/') && !path.startsWith('/v2/openapi.json')) reply.header('cache-control', 'no-store');
    else if (path === '/docs' || path.startsWith('/docs/')) reply.headers(DOCS_HEADERS);
    done();
  });
}
