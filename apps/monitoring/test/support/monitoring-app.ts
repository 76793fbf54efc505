import type { INestMicroservice } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import { Registry } from 'prom-client';
import { RpcTestCaller, type SettingsOverrides, startTestMicroservice, testLogger } from '@conduit/testing';
import { AppModule } from '../../src/app.module.js';
import { monitoringSettings, type MonitoringSettings } from '../../src/monitoring-settings.js';
import { REDIS_URL } from './redis.js';

export interface MonitoringUnderTest {
  app: INestMicroservice;
  registry: Registry;
  close(): Promise<void>;
}

/** The monitoring app as one replica: its RPC server on the suite's prefix and its workers. */
export async function startMonitoring(
  ds: DataSource,
  prefix: string,
  overrides: SettingsOverrides<MonitoringSettings> = {},
): Promise<MonitoringUnderTest> {
  const settings = monitoringSettings({
    redisUrl: REDIS_URL,
    redisPrefix: prefix,
    outboxSweepMs: 200,
    ...overrides,
    background: { cleanup: false, ...overrides.background },
  });
  const registry = new Registry();
  const app = await startTestMicroservice(
    AppModule.forRoot({ database: ds, logger: testLogger('monitoring'), settings, registry }),
    { service: 'monitoring', prefix },
  );
  return { app, registry, close: () => app.close() };
}

/** Calls the monitoring service over the real transport as the tenant. */
export class MonitoringCaller extends RpcTestCaller {}
