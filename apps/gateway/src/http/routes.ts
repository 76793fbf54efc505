import type { FastifyInstance } from 'fastify';
import { AppError } from '@conduit/contracts';
import { HeaderedError } from './problem.js';

/**
 * The routes Fastify knows, recorded as they are registered, so that an unmatched request can be told apart:
 * a known path with another method is a 405 with `Allow`, anything else a 404 (see ProblemFilter).
 */
export class RouteTable {
  private readonly routes: { pattern: RegExp; method: string }[] = [];

  /** Must run before the routes are registered (before app.init()). */
  attach(app: FastifyInstance): void {
    app.addHook('onRoute', (route) => {
      const methods = Array.isArray(route.method) ? route.method : [route.method];
      const pattern = new RegExp(
        // Exact paths, as Fastify routes them: `/v2/projects/` is no route (404), not a 405 that allows GET.
        '^' + route.url.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/:[A-Za-z0-9_]+/g, '[^/]+') + '$',
      );
      for (const method of methods) this.routes.push({ pattern, method: String(method).toUpperCase() });
    });
  }

  /** Methods served on a concrete path, HEAD left out. */
  allowedMethods(path: string): string[] {
    const methods = new Set<string>();
    for (const r of this.routes) if (r.method !== 'HEAD' && r.pattern.test(path)) methods.add(r.method);
    return [...methods].sort();
  }

  /** The problem for a request no route matched. */
  unmatched(method: string, url: string): AppError {
    const path = url.split('?')[0] ?? '/';
    const allowed = this.allowedMethods(path);
    if (allowed.length > 0) {
      return new HeaderedError(
        { code: 'method_not_allowed', detail: `${method} is not allowed here; use ${allowed.join(', ')}` },
        { allow: allowed.join(', ') },
      );
    }
    return new AppError('not_found', `no route ${method} ${path}`);
  }
}
