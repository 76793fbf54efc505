import { Module, type INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { createServer } from 'node:net';
import { Counter, Registry } from 'prom-client';
import { Redis } from 'ioredis';
import type { DataSource } from 'typeorm';
import {
  OPS_PATHS,
  OpsModule,
  createMetricsRegistry,
  createServiceDataSource,
  dataSourceReadinessCheck,
  redisReadinessCheck,
  type OpsModuleOptions,
} from '../src/index.js';
import { DATABASE_URL, connectPostgres, connectRedis } from './servers.js';

async function startApp(
  options: OpsModuleOptions,
  globalPrefix?: string,
): Promise<{ app: INestApplication; url: string }> {
  @Module({ imports: [OpsModule.forRoot(options)] })
  class AppModule {}
  const app = await NestFactory.create<NestFastifyApplication>(AppModule, new FastifyAdapter(), { logger: false });
  if (globalPrefix) app.setGlobalPrefix(globalPrefix, { exclude: [...OPS_PATHS] });
  await app.listen(0, '127.0.0.1');
  return { app, url: await app.getUrl() };
}

/** A port nothing listens on: bind an ephemeral one, then close it. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

describe('OpsModule on Fastify with real PostgreSQL and Redis', () => {
  let redis: Redis;
  let ds: DataSource;
  let registry: Registry;
  let app: INestApplication;
  let url: string;

  beforeAll(async () => {
    await (await connectPostgres()).end();
    redis = await connectRedis();
    ds = createServiceDataSource({ url: DATABASE_URL, schema: 'public', entities: [], migrations: [], poolSize: 2 });
    await ds.initialize();
    registry = createMetricsRegistry('ops-test');
    new Counter({ name: 'conduit_ops_test_total', help: 'A counter for the test', registers: [registry] }).inc(3);
    ({ app, url } = await startApp(
      { registry, checks: [dataSourceReadinessCheck(ds), redisReadinessCheck(redis)] },
      'v2',
    ));
  });

  afterAll(async () => {
    await app?.close();
    if (ds?.isInitialized) await ds.destroy();
    redis?.disconnect();
  });

  it('GET /healthz answers ok without consulting dependencies', async () => {
    const response = await fetch(`${url}/healthz`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: 'ok' });
  });

  it('GET /readyz answers ok when PostgreSQL and Redis answer', async () => {
    const response = await fetch(`${url}/readyz`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: 'ok', checks: { db: 'ok', redis: 'ok' } });
  });

  it('GET /metrics serves the Prometheus text format with its content type', async () => {
    const response = await fetch(`${url}/metrics`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe(Registry.PROMETHEUS_CONTENT_TYPE);
    const text = await response.text();
    expect(text).toMatch(/^conduit_ops_test_total\{service="ops-test"\} 3$/m);
    expect(text).toMatch(/^process_cpu_user_seconds_total\{service="ops-test"\} [0-9.e-]+$/m);
  });

  it('stays outside a global prefix', async () => {
    expect((await fetch(`${url}/v2/healthz`)).status).toBe(404);
  });
});

describe('OpsModule readiness failures', () => {
  let app: INestApplication | undefined;
  let deadRedis: Redis | undefined;

  afterEach(async () => {
    await app?.close();
    deadRedis?.disconnect();
    app = undefined;
    deadRedis = undefined;
  });

  it('answers 503 naming each failing check', async () => {
    // Without the offline queue, a PING to an unreachable Redis fails at once instead of waiting.
    deadRedis = new Redis({
      host: '127.0.0.1',
      port: await closedPort(),
      lazyConnect: true,
      enableOfflineQueue: false,
    });
    const idle = createServiceDataSource({ url: DATABASE_URL, schema: 'public', entities: [], migrations: [] });
    ({ app } = await startApp({
      registry: createMetricsRegistry('ops-test'),
      checks: [
        dataSourceReadinessCheck(idle),
        redisReadinessCheck(deadRedis),
        { name: 'queue', check: async () => undefined },
      ],
    }));
    const response = await fetch(`${await app.getUrl()}/readyz`);
    expect(response.status).toBe(503);
    const body = (await response.json()) as { status: string; checks: Record<string, string> };
    expect(body.status).toBe('unavailable');
    expect(body.checks['db']).toBe('error: data source not initialised');
    expect(body.checks['redis']).toMatch(/^error: /);
    expect(body.checks['queue']).toBe('ok');
  });

  it('gives up on a hanging check after 2 s', async () => {
    ({ app } = await startApp({
      registry: createMetricsRegistry('ops-test'),
      checks: [{ name: 'stuck', check: () => new Promise<void>(() => undefined) }],
    }));
    const started = Date.now();
    const response = await fetch(`${await app.getUrl()}/readyz`);
    const elapsed = Date.now() - started;
    expect(response.status).toBe(503);
    expect(await response.json()).toEqual({
      status: 'unavailable',
      checks: { stuck: 'error: timed out after 2000 ms' },
    });
    expect(elapsed).toBeGreaterThanOrEqual(1900);
    expect(elapsed).toBeLessThan(5000);
  });

  it('without a registry serves health and readiness but no /metrics', async () => {
    ({ app } = await startApp({ checks: [{ name: 'queue', check: async () => undefined }] }));
    const url = await app.getUrl();
    expect((await fetch(`${url}/readyz`)).status).toBe(200);
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    expect((await fetch(`${url}/metrics`)).status).toBe(404);
  });

  it('refuses two checks with the same name', () => {
    const check = { name: 'db', check: async () => undefined };
    expect(() => OpsModule.forRoot({ registry: new Registry(), checks: [check, check] })).toThrow(
      'two readiness checks are named "db"',
    );
  });
});
