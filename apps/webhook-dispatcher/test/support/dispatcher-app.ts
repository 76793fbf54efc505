import { SecretBox, sealFieldsForTransit } from '@conduit/secrets';
import { Writable } from 'node:stream';
import type { INestMicroservice } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import { RpcTestCaller, type SettingsOverrides, startTestMicroservice } from '@conduit/testing';
import { createLogger } from '@conduit/service-kit';
import type { RpcReply } from '@conduit/contracts';
import { AppModule } from '../../src/app.module.js';
import { dispatcherSettings, type DispatcherSettings } from '../../src/dispatcher-settings.js';
import { REDIS_URL } from './redis.js';

export const TEST_SECRETS_KEY = Buffer.alloc(32, 7);

export interface DispatcherUnderTest {
  app: INestMicroservice;
  /** Every log line the app wrote (level debug), to prove what never appears in them. */
  logs(): string;
  close(): Promise<void>;
}

/** The dispatcher app as one replica: its RPC server on the suite's prefix and its workers. */
export async function startDispatcher(
  ds: DataSource,
  prefix: string,
  overrides: SettingsOverrides<DispatcherSettings> = {},
): Promise<DispatcherUnderTest> {
  const { background, ...rest } = overrides;
  const settings = dispatcherSettings({
    redisUrl: REDIS_URL,
    redisPrefix: prefix,
    secretsKey: TEST_SECRETS_KEY,
    sweepMs: 500,
    ...rest,
    ...(background ? { background: background as DispatcherSettings['background'] } : {}),
  });
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(chunk.toString('utf8'));
      done();
    },
  });
  const logger = createLogger({ service: 'webhook-dispatcher', level: 'debug', destination: sink });
  const app = await startTestMicroservice(AppModule.forRoot({ database: ds, logger, settings }), {
    service: 'webhooks',
    prefix,
  });
  return { app, logs: () => lines.join(''), close: () => app.close() };
}

/** Calls the dispatcher over the real transport as the tenant. */
export class DispatcherCaller extends RpcTestCaller {
  /** As the gateway sends it: a body's `secret` sealed for the tenant. */
  override call<T>(tenantId: string, pattern: string, data: unknown): Promise<RpcReply<T>> {
    const d = data as { body?: Record<string, unknown> };
    const sealed = d.body
      ? { ...d, body: sealFieldsForTransit(new SecretBox(TEST_SECRETS_KEY), d.body, ['secret'], tenantId, 'webhook') }
      : data;
    return super.call<T>(tenantId, pattern, sealed);
  }

  /** Exactly this data, secrets as they are. */
  callRaw<T>(tenantId: string, pattern: string, data: unknown): Promise<RpcReply<T>> {
    return super.call<T>(tenantId, pattern, data);
  }
}
