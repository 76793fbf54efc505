import type { INestMicroservice } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import { RpcTestCaller, type SettingsOverrides, startTestMicroservice, testLogger } from '@conduit/testing';
import { AppModule } from '../../src/app.module.js';
import { schedulerSettings, type SchedulerSettings } from '../../src/scheduler-settings.js';
import { REDIS_URL } from './redis.js';

export interface SchedulerUnderTest {
  app: INestMicroservice;
  close(): Promise<void>;
}

/** The scheduler app as one replica: its RPC server on the suite's prefix and its background work. */
export async function startScheduler(
  ds: DataSource,
  prefix: string,
  overrides: SettingsOverrides<SchedulerSettings> = {},
): Promise<SchedulerUnderTest> {
  const { background, ...rest } = overrides;
  const settings = schedulerSettings({
    redisUrl: REDIS_URL,
    redisPrefix: prefix,
    outboxSweepMs: 200,
    ...rest,
    ...(background ? { background: background as SchedulerSettings['background'] } : {}),
  });
  const app = await startTestMicroservice(
    AppModule.forRoot({ database: ds, logger: testLogger('scheduler'), settings }),
    { service: 'scheduler', prefix },
  );
  return { app, close: () => app.close() };
}

/** Calls the scheduler over the real transport as the tenant. */
export class SchedulerCaller extends RpcTestCaller {}
