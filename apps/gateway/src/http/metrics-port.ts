import type { INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import type { Logger } from 'pino';
import { type OpsModuleOptions, NestPinoLogger, OpsModule } from '@conduit/service-kit';
import { receiveTimeouts } from './gateway-server.js';

export interface MetricsPortOptions extends OpsModuleOptions {
  port: number;
  host: string;
  /** REQUEST_RECEIVE_TIMEOUT_MS: a private port, but a dripping client must not hold it either. */
  receiveTimeoutMs: number;
  logger: Logger;
}

/**
 * The gateway's ops port: `/metrics` (with `/healthz` and `/readyz`, as every other service serves them on its
 * own port), served by service-kit's OpsModule in a Nest app of its own. The public API port has no /metrics:
 * the series name routes and rates that are the operator's business, not a tenant's. The caller closes it
 * (no shutdown hooks here: two apps re-raising SIGTERM would cut the API's drain short).
 */
export async function startMetricsPort(options: MetricsPortOptions): Promise<INestApplication> {
  const { port, host, receiveTimeoutMs, logger, ...ops } = options;
  const app = await NestFactory.create(OpsModule.forRoot(ops), new FastifyAdapter(receiveTimeouts(receiveTimeoutMs)), {
    logger: new NestPinoLogger(logger),
  });
  await app.listen(port, host);
  return app;
}
