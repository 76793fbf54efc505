import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { parseOrThrow, parseQueryOrThrow } from '@conduit/contracts';
import { ROUTE_INPUT, type RouteInput } from '../openapi/operation.decorator.js';

const NOTHING = z.strictObject({});
const METHODS_WITH_BODY = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * Runs after AccessGuard. Refuses what a route does not take, by its @Operation declaration (the same one the
 * OpenAPI document shows): a query parameter it does not declare is a 400 invalid_parameter, and on an operation
 * without a body (test, pause, resume, cancel, delete) any body field is a 422 unknown_field. Routes that
 * declare a query or a body check their values with their own schemas.
 */
@Injectable()
export class RouteInputGuard implements CanActivate {
  private readonly routes = new WeakMap<object, RouteInput | null>();

  constructor(private readonly reflector: Reflector) {}

  canActivate(context: ExecutionContext): boolean {
    const input = this.inputOf(context);
    if (!input) return true;
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    if (input.query.length === 0 && request.query && Object.keys(request.query).length > 0) {
      parseQueryOrThrow(NOTHING, request.query);
    }
    if (!input.body && METHODS_WITH_BODY.has(request.method) && request.body !== undefined) {
      parseOrThrow(NOTHING, request.body);
    }
    return true;
  }

  private inputOf(context: ExecutionContext): RouteInput | null {
    const handler = context.getHandler();
    let input = this.routes.get(handler);
    if (input === undefined) {
      input = this.reflector.get<RouteInput | undefined>(ROUTE_INPUT, handler) ?? null;
      this.routes.set(handler, input);
    }
    return input;
  }
}
