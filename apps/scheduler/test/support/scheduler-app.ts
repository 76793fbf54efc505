import 'reflect-metadata';
import type { INestMicroservice } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { DataSource } from 'typeorm';
import { RedisStreamsClient, RedisStreamsServer, rpcCall } from '@conduit/rpc-streams';
import { createLogger } from '@conduit/service-kit';
import type { RpcReply } from '@conduit/contracts';
import { AppModule } from '../../src/app.module.js';
import { schedulerSettings, type SchedulerSettings } from '../../src/scheduler-settings.js';
import { REDIS_URL } from './redis.js';
import { rpcCtx } from './db.js';

export interface SchedulerUnderTest {
  app: INestMicroservice;
  close(): Promise<void>;
}

/** The scheduler app as one replica: its RPC server on the suite's prefix and its background work. */
export async function startScheduler(
  ds: DataSource,
  prefix: string,
  overrides: Partial<Omit<SchedulerSettings, 'background'>> & {
    background?: Partial<SchedulerSettings['background']>;
  } = {},
): Promise<SchedulerUnderTest> {
  const { background, ...rest } = overrides;
  const settings = schedulerSettings({
    redisUrl: REDIS_URL,
    redisPrefix: prefix,
    outboxSweepMs: 200,
    ...rest,
    ...(background ? { background: background as SchedulerSettings['background'] } : {}),
  });
  const app = await NestFactory.createMicroservice(
    AppModule.forRoot({
      database: ds,
      logger: createLogger({
        service: 'scheduler',
        level: process.env['TEST_LOG_LEVEL'] === 'debug' ? 'debug' : 'silent',
      }),
      settings,
    }),
    { strategy: new RedisStreamsServer({ url: REDIS_URL, prefix, service: 'scheduler', blockMs: 500 }), logger: false },
  );
  await app.listen();
  return { app, close: () => app.close() };
}

/** Calls the scheduler over the real transport as the tenant. */
export class SchedulerCaller {
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
