import type { DynamicModule, INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { DataSource } from 'typeorm';
import { RedisStreamsServer } from '@conduit/rpc-streams';
import { NestPinoLogger } from '../nest-pino-logger.js';
import { createMetricsRegistry } from '../metrics.js';
import { dataSourceReadinessCheck, redisReadinessCheck } from '../readiness-checks.js';
import type { OpsModuleOptions } from '../ops/ops-options.js';
import { startupFailureLine } from '../startup/startup-error.js';
import { startTracing } from '../tracing/start-tracing.js';

/** The ops endpoints of an RPC service: always with its metrics registry. */
type RpcServiceOps = OpsModuleOptions & { registry: Registry };

export interface RpcServiceOptions {
  /** The service's name in logs and metrics (`webhook-dispatcher`). */
  name: string;
  /** The RPC service it answers for, the first segment of its patterns (`webhooks`). Default: `name`. */
  rpcService?: string;
  logger: Logger;
  redisUrl: string;
  redisPrefix: string;
  /** Most RPC requests handled at once by this replica. */
  rpcConcurrency: number;
  /** The HTTP port of /healthz, /readyz and /metrics. */
  port: number;
  host: string;
  /**
   * The app's root module, given the ops endpoints' settings and the hook that closes what was opened for it. It
   * provides the `DataSource` (TypeOrmModule, {@link serviceDatabaseModule}), which closes with the app.
   */
  module(ops: RpcServiceOps, onShutdown: () => Promise<void>): DynamicModule;
  /** Closes what the caller opened besides the Redis connection of /readyz. */
  closeAlso?: () => Promise<void>;
  /** Global enhancers (interceptors) also wrap the RPC handlers. */
  inheritAppConfig?: boolean;
}

/**
 * Starts a service that answers RPC over Redis Streams and serves its ops endpoints over HTTP: the Nest app on
 * Fastify, readiness of its database and Redis, shutdown hooks that close everything, then listens.
 */
export async function startRpcService(opts: RpcServiceOptions): Promise<INestApplication> {
  // Only for /readyz: the RPC transport and BullMQ keep connections of their own.
  const redis = new Redis(opts.redisUrl, { maxRetriesPerRequest: 1 });
  // An outage shows in /readyz (and ioredis reconnects by itself): not an 'Unhandled error event' on stderr.
  redis.on('error', () => undefined);
  // The app opens the data source (TypeOrmModule): /readyz, called only once it listens, finds it there.
  const opened: { app?: NestFastifyApplication } = {};
  const ops: RpcServiceOps = {
    registry: createMetricsRegistry(opts.name),
    checks: [dataSourceReadinessCheck(() => opened.app?.get(DataSource)), redisReadinessCheck(redis)],
  };
  const onShutdown = async () => {
    redis.disconnect();
    await opts.closeAlso?.();
  };
  // abortOnError: a database that fails to open (migrations) is one line from runService, not a core dump.
  const app = await NestFactory.create<NestFastifyApplication>(opts.module(ops, onShutdown), new FastifyAdapter(), {
    logger: new NestPinoLogger(opts.logger),
    abortOnError: false,
  });
  opened.app = app;
  app.connectMicroservice(
    {
      strategy: new RedisStreamsServer({
        url: opts.redisUrl,
        prefix: opts.redisPrefix,
        service: opts.rpcService ?? opts.name,
        concurrency: opts.rpcConcurrency,
      }),
    },
    { inheritAppConfig: opts.inheritAppConfig ?? false },
  );
  app.enableShutdownHooks();
  await app.startAllMicroservices();
  await app.listen(opts.port, opts.host);
  opts.logger.info({ port: opts.port, host: opts.host }, `${opts.name} ready`);
  return app;
}

/** Runs a service's entry point; a failure to start is one line on stderr and exit code 1. */
export function runService(name: string, main: () => Promise<unknown>): void {
  // Tracing first (when OTEL_* asks for it): its instrumentations must be in place before the first client exists.
  startTracing(name)
    .then(main)
    .catch((err: unknown) => {
      process.stderr.write(`${startupFailureLine(name, err)}\n`);
      process.exit(1);
    });
}
