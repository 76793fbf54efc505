import 'reflect-metadata';
import type { INestMicroservice } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { DataSource } from 'typeorm';
import { Registry } from 'prom-client';
import { RedisStreamsClient, RedisStreamsServer, rpcCall } from '@conduit/rpc-streams';
import { createLogger } from '@conduit/service-kit';
import type { RpcReply } from '@conduit/contracts';
import { AppModule } from '../../src/app.module.js';
import { monitoringSettings, type MonitoringSettings } from '../../src/monitoring-settings.js';
import { REDIS_URL } from './redis.js';
import { rpcCtx } from './db.js';

export interface MonitoringUnderTest {
  app: INestMicroservice;
  registry: Registry;
  close(): Promise<void>;
}

/** The monitoring app as one replica: its RPC server on the suite's prefix and its workers. */
export async function startMonitoring(
  ds: DataSource,
  prefix: string,
  overrides: Partial<Omit<MonitoringSettings, 'background'>> & {
    background?: Partial<MonitoringSettings['background']>;
  } = {},
): Promise<MonitoringUnderTest> {
  const settings = monitoringSettings({
    redisUrl: REDIS_URL,
    redisPrefix: prefix,
    outboxSweepMs: 200,
    ...overrides,
    background: { cleanup: false, ...overrides.background },
  });
  const registry = new Registry();
  const logger = createLogger({
    service: 'monitoring',
    level: process.env['TEST_LOG_LEVEL'] === 'debug' ? 'debug' : 'silent',
  });
  const app = await NestFactory.createMicroservice(AppModule.forRoot({ database: ds, logger, settings, registry }), {
    strategy: new RedisStreamsServer({ url: REDIS_URL, prefix, service: 'monitoring', blockMs: 500 }),
    logger: false,
  });
  await app.listen();
  return { app, registry, close: () => app.close() };
}

/** Calls the monitoring service over the real transport as the tenant. */
export class MonitoringCaller {
  readonly client: RedisStreamsClient;

  constructor(prefix: string) {
    this.client = new RedisStreamsClient({ url: REDIS_URL, prefix, timeoutMs: 10_000 });
  }

  call<T>(tenantId: string, pattern: string, data: unknown): Promise<RpcReply<T>> {
    return rpcCall<RpcReply<T>>(this.client, pattern, { ctx: rpcCtx(tenantId), data });
  }

  /** The data of a successful reply; fails the test with the error otherwise. */
  async ok<T>(tenantId: string, pattern: string, data: unknown): Promise<T> {
    const reply = await this.call<T>(tenantId, pattern, data);
    if (!reply.ok) throw new Error(`${pattern} failed: ${JSON.stringify(reply.error)}`);
    return reply.data;
  }

  close(): Promise<void> {
    return this.client.close();
  }
}
