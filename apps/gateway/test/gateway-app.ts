// The whole gateway in the test's process, assembled as main.ts assembles it (its Fastify server and hooks, AppModule),
// on a throwaway schema and Redis prefix, listening on a free port. The services behind it are a stub transport that
// answers each RPC pattern as the test says and records what it was asked. Not the console's, /docs and
// /v2/openapi.json routes: they are served by @fastify/static, which needs an ES module that jest cannot require.
import 'reflect-metadata';
import { connect } from 'node:net';
import { NestFactory } from '@nestjs/core';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { ClientProxy } from '@nestjs/microservices';
import { Registry } from 'prom-client';
import { type Observable, isObservable, of } from 'rxjs';
import { createAccessLog, newId } from '@conduit/service-kit';
import { testLogger } from '@conduit/testing';
import { AppModule } from '../src/app.module.js';
import { gatewayEnvSchema } from '../src/config.js';
import { createGatewayServer } from '../src/http/gateway-server.js';
import { ApiKeysService } from '../src/api-keys/api-keys.service.js';
import { openTestDatabase, openTestRedis } from './auth-fixtures.js';

/** A service's reply envelope for one call (`{ ok: true, data }`, `{ ok: false, error }`), or an Observable of it. */
export type StubService = (data: unknown) => unknown;

/** A call the gateway made to a service. */
export interface BackendCall {
  pattern: string;
  data: unknown;
}

export interface GatewayAppOptions {
  /** REQUEST_RECEIVE_TIMEOUT_MS, unchecked: tests use less than the setting's minimum. Default 30 000. */
  receiveTimeoutMs?: number;
  /** Answers by RPC pattern; any other pattern is answered `not_found`. */
  services?: Record<string, StubService>;
  /** Environment settings beside the defaults, as the gateway's environment would give them. */
  env?: Record<string, string>;
}

export interface GatewayApp {
  url: string;
  port: number;
  /** An API key of a tenant of its own, with read, write and admin. */
  key: string;
  /** An API key of another new tenant, with read, write and admin. */
  newTenantKey(): Promise<string>;
  calls: BackendCall[];
  stop(): Promise<void>;
}

function stubTransport(services: Record<string, StubService>, calls: BackendCall[]): ClientProxy {
  const send = (pattern: string, message: { data?: unknown }): Observable<unknown> => {
    calls.push({ pattern, data: message.data });
    const service = services[pattern];
    const answer = service
      ? service(message.data)
      : { ok: false, error: { code: 'not_found', detail: `stub: nothing for ${pattern}` } };
    return isObservable(answer) ? answer : of(answer);
  };
  return { send } as unknown as ClientProxy;
}

export async function startGatewayApp(options: GatewayAppOptions = {}): Promise<GatewayApp> {
  const db = await openTestDatabase();
  const redis = await openTestRedis();
  const config = {
    ...gatewayEnvSchema.parse({
      SECRETS_KEY: '0a'.repeat(32),
      REDIS_PREFIX: redis.prefix,
      LOG_LEVEL: 'silent',
      ...options.env,
    }),
    ...(options.receiveTimeoutMs === undefined ? {} : { REQUEST_RECEIVE_TIMEOUT_MS: options.receiveTimeoutMs }),
  };
  const registry = new Registry();
  const calls: BackendCall[] = [];
  const { adapter, fastify, routes, admitWith } = createGatewayServer({
    receiveTimeoutMs: config.REQUEST_RECEIVE_TIMEOUT_MS,
    accessLog: createAccessLog({
      service: 'gateway',
      level: process.env['TEST_LOG_LEVEL'] === 'debug' ? 'debug' : 'silent',
    }),
    registry,
  });
  const runtime = {
    config,
    logger: testLogger('gateway'),
    database: db.dataSource,
    redis: redis.redis,
    rpc: stubTransport(options.services ?? {}, calls),
    registry,
    readiness: [],
    routes,
    admitWith,
  };
  let app: NestFastifyApplication | undefined;
  const stop = async () => {
    await app?.close();
    await redis.cleanup();
    await db.drop();
  };
  try {
    app = await NestFactory.create<NestFastifyApplication>(AppModule.forRoot(runtime), adapter, {
      bodyParser: false,
      logger: false,
      abortOnError: false,
    });
    await app.listen(0, '127.0.0.1');
    const keys = app.get(ApiKeysService);
    const newTenantKey = async () =>
      (await keys.create(newId('tenant'), { name: 'probe', scopes: ['read', 'write', 'admin'] })).key;
    const key = await newTenantKey();
    const address = fastify.server.address();
    if (address === null || typeof address === 'string') throw new Error('the gateway is not listening on TCP');
    return { url: `http://127.0.0.1:${address.port}`, port: address.port, key, newTenantKey, calls, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

export interface RawAnswer {
  /** Everything the server sent before it closed the connection. */
  text: string;
  status: number | undefined;
  /** From the first byte written until the server closed the connection. */
  elapsedMs: number;
}

/**
 * Writes `request` as bytes (a request target fetch would normalise, a head or body that never completes) and answers
 * what came back once the server closes the connection; `drip` then writes one more byte every `everyMs`. Fails after
 * `deadlineMs` if the connection is still open.
 */
export function rawExchange(
  port: number,
  request: string,
  options: { drip?: { everyMs: number }; deadlineMs?: number } = {},
): Promise<RawAnswer> {
  const { drip, deadlineMs = 10_000 } = options;
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const chunks: Buffer[] = [];
    const socket = connect(port, '127.0.0.1', () => socket.write(request));
    const dripping = drip && setInterval(() => socket.writable && socket.write('a'), drip.everyMs);
    const deadline = setTimeout(() => {
      socket.destroy();
      reject(new Error(`the connection was still open after ${deadlineMs} ms`));
    }, deadlineMs);
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    // The server may reset a connection it closes while bytes are still arriving: that is a close too.
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(deadline);
      if (dripping) clearInterval(dripping);
      const text = Buffer.concat(chunks).toString('utf8');
      const status = /^HTTP\/1\.1 (\d{3})/.exec(text)?.[1];
      resolve({ text, status: status === undefined ? undefined : Number(status), elapsedMs: Date.now() - started });
    });
  });
}

/** The JSON body of a complete raw answer (Connection: close, no chunking). */
export function bodyOf(answer: RawAnswer): unknown {
  return JSON.parse(answer.text.slice(answer.text.indexOf('\r\n\r\n') + 4));
}
