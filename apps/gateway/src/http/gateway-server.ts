import { FastifyAdapter } from '@nestjs/platform-fastify';
import type { FastifyInstance } from 'fastify';
import type { Registry } from 'prom-client';
import { LIMITS } from '@conduit/contracts';
import type { AccessLog } from '@conduit/service-kit';
import { requestIdOf } from './request-id.js';
import { registerJsonBodyParser } from './json-body.js';
import { RouteTable } from './routes.js';
import { registerRequestLog } from './request-log.js';
import { registerRequestMetrics } from './request-metrics.js';
import { registerDrainOnClose } from './drain-on-close.js';
import { registerInvalidCharacterCheck } from './invalid-characters.js';
import { onClientError, onFrameworkError } from './client-errors.js';
import { registerAdmitBeforeBody, type Admission } from './admit-before-body.js';
import { registerSecurityHeaders } from './security-headers.js';

/**
 * Node's bound on receiving a request, for each HTTP server of the gateway. Fastify's default requestTimeout (0) turns
 * off Node's own (300 s): a client sending one body byte every few seconds would hold its connection for ever. The
 * deadline runs from a request's first byte to its last, and then answers 408 and closes: an idle keep-alive
 * connection has Fastify's keepAliveTimeout (72 s) instead, and an answer, however long it streams, has none.
 */
export function receiveTimeouts(receiveTimeoutMs: number) {
  return {
    // Fastify sets this on the server once created; Node reads `http` when creating it.
    requestTimeout: receiveTimeoutMs,
    http: {
      requestTimeout: receiveTimeoutMs,
      // The head is part of the request: one deadline for both (Node would allow the head 60 s, longer than that).
      headersTimeout: receiveTimeoutMs,
      // Node looks for late requests every 30 s by default, which would let one run up to 30 s past its deadline.
      connectionsCheckingInterval: Math.min(1000, Math.ceil(receiveTimeoutMs / 10)),
    },
  };
}

export interface GatewayServerOptions {
  /** REQUEST_RECEIVE_TIMEOUT_MS. */
  receiveTimeoutMs: number;
  accessLog: AccessLog;
  registry: Registry;
}

export interface GatewayServer {
  adapter: FastifyAdapter;
  fastify: FastifyInstance;
  routes: RouteTable;
  /** Admits requests with a body before it is read (admit-before-body.ts): call once the guard exists. */
  admitWith: (admission: Admission) => void;
}

/** The public API's Fastify server and every hook it runs around Nest's routes: main.ts's, and the HTTP tests'. */
export function createGatewayServer(options: GatewayServerOptions): GatewayServer {
  // maxParamLength: Fastify's default (100) answers a longer path id with its own 414; api.md wants a 404 problem,
  // which the id check gives. Node refuses request heads over 16 KiB anyway.
  const adapter = new FastifyAdapter({
    bodyLimit: LIMITS.bodyBytes,
    genReqId: requestIdOf,
    logger: false,
    maxParamLength: 16 * 1024,
    clientErrorHandler: onClientError,
    frameworkErrors: onFrameworkError,
    ...receiveTimeouts(options.receiveTimeoutMs),
  });
  const fastify = adapter.getInstance();
  const routes = new RouteTable();
  routes.attach(fastify);
  registerSecurityHeaders(fastify);
  const early = registerAdmitBeforeBody(fastify);
  registerJsonBodyParser(fastify);
  registerInvalidCharacterCheck(fastify);
  // Access lines carry only named, non-secret fields (see request-log.ts): no redaction pass needed.
  registerRequestLog(fastify, options.accessLog);
  registerRequestMetrics(fastify, options.registry);
  registerDrainOnClose(fastify);
  return { adapter, fastify, routes, admitWith: early.admitWith };
}
