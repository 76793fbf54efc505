import { type CanActivate, type ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Scope } from '@conduit/contracts';
import { AuthService } from '../auth/auth.service.js';
import { assertScope, requiredScope } from '../auth/scopes.js';
import { RateLimiter } from '../rate-limit/rate-limiter.js';
import { HeaderedError } from '../http/problem.js';
import { GATEWAY_CONFIG } from '../tokens.js';
import type { GatewayConfig } from '../config.js';
import { PUBLIC_ROUTE, ROUTE_SCOPE } from './access.decorators.js';
import { wideLimits } from '../rate-limit/rate-limit.config.js';
import type { Principal } from '../auth/principal.js';

/** What a route declares about its access, read once per handler. */
interface RouteAccess {
  isPublic: boolean;
  scope: Scope | undefined;
}

/**
 * Routes served without a credential though they cannot carry @Public(): /healthz and /readyz come from
 * service-kit's OpsController, and api.md makes them public. Every other route needs one.
 */
const OPEN_ROUTES: ReadonlySet<string> = new Set(['/healthz', '/readyz']);

/**
 * Every request to a route but OPEN_ROUTES and @Public() ones (so all of /v2, however spelt): who is calling (401),
 * within their rate (429), with the scope the route needs (403).
 */
@Injectable()
export class AccessGuard implements CanActivate {
  /** Decorator metadata never changes after boot: read it once per handler instead of on every request. */
  private readonly routes = new WeakMap<object, RouteAccess>();
  /** The limits beyond one credential's, fixed by the config: derived once, not per request. */
  private readonly wide: { keyMax: number; tenant: number };

  constructor(
    private readonly reflector: Reflector,
    private readonly auth: AuthService,
    private readonly limiter: RateLimiter,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
  ) {
    this.wide = wideLimits(config);
  }

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const route = this.accessOf(context);
    if (route.isPublic) return true;

    const request = context.switchToHttp().getRequest<FastifyRequest>();
    // The route Fastify matched, never the URL as sent: its router decodes `/%762/projects` and takes an
    // absolute-form target (`http://host/v2/projects`) to /v2 routes, which a test of the raw URL let through.
    if (OPEN_ROUTES.has(request.routeOptions.url ?? '')) return true;
    const reply = context.switchToHttp().getResponse<FastifyReply>();
    // A request with a body was admitted before its body was read (gateway-server.ts admitBeforeBody).
    const principal = request.principal ?? (await this.admit(request, reply));
    assertScope(principal, route.scope ?? requiredScope(request.method));
    return true;
  }

  /**
   * Who is calling (401) and within their rates (429), the rate headers set: the route's own scope aside, all a
   * request needs before its body is worth reading. Sets and answers `request.principal`.
   */
  async admit(request: FastifyRequest, reply: FastifyReply): Promise<Principal> {
    const apiKey = request.headers['x-api-key'];
    const authorization = request.headers.authorization;
    const principal = await this.auth.authenticate({
      ...(typeof apiKey === 'string' ? { apiKey } : {}),
      ...(typeof authorization === 'string' ? { authorization } : {}),
    });
    request.principal = principal;

    const own = principal.rate_limit_per_minute ?? this.config.RATE_LIMIT_PER_MINUTE;
    const limit = Math.min(own, this.wide.keyMax);
    const rate = await this.limiter.consume(principal.credential_id, limit);
    const headers = this.limiter.headersFor(rate);
    if (!rate.allowed) {
      throw new HeaderedError({ code: 'rate_limited', detail: `more than ${limit} requests a minute` }, headers);
    }
    // The tenant's credentials together, counted only for requests its credential let through.
    const tenantLimit = this.wide.tenant;
    const tenantRate = await this.limiter.consume(`tenant:${principal.tenant_id}`, tenantLimit);
    if (!tenantRate.allowed) {
      throw new HeaderedError(
        {
          code: 'rate_limited',
          detail: `more than ${tenantLimit} requests a minute from this tenant's credentials together`,
        },
        this.limiter.headersFor(tenantRate),
      );
    }
    reply.headers(headers);
    return principal;
  }

  private accessOf(context: ExecutionContext): RouteAccess {
    const handler = context.getHandler();
    let access = this.routes.get(handler);
    if (!access) {
      const targets = [handler, context.getClass()];
      access = {
        isPublic: this.reflector.getAllAndOverride<boolean>(PUBLIC_ROUTE, targets) === true,
        scope: this.reflector.getAllAndOverride<Scope | undefined>(ROUTE_SCOPE, targets),
      };
      this.routes.set(handler, access);
    }
    return access;
  }
}
