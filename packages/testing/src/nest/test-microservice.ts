import 'reflect-metadata';
import type { DynamicModule, INestMicroservice } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { RedisStreamsServer } from '@conduit/rpc-streams';
import { createLogger } from '@conduit/service-kit';
import { REDIS_URL } from '../redis/redis-keys.js';

/** Where a service under test listens: its RPC server on the suite's prefix. */
export interface TestMicroserviceOptions {
  /** The service name its requests are addressed to ("scheduler", "webhooks"). */
  service: string;
  prefix: string;
  /** Default REDIS_URL. */
  url?: string;
}

/**
 * Starts an app module (the service's, or a stub's) as one replica answering RPC over the real transport. The
 * server blocks 500 ms per read so that closing it is quick.
 */
export async function startTestMicroservice(
  module: DynamicModule,
  options: TestMicroserviceOptions,
): Promise<INestMicroservice> {
  const { service, prefix, url = REDIS_URL } = options;
  const app = await NestFactory.createMicroservice(module, {
    strategy: new RedisStreamsServer({ url, prefix, service, blockMs: 500 }),
    logger: false,
  });
  await app.listen();
  return app;
}

/** The service's logger in tests: silent, unless TEST_LOG_LEVEL=debug asks to see it. */
export function testLogger(service: string): ReturnType<typeof createLogger> {
  return createLogger({ service, level: process.env['TEST_LOG_LEVEL'] === 'debug' ? 'debug' : 'silent' });
}
