import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { Redis } from 'ioredis';
import { DataSource } from 'typeorm';
import { RedisStreamsClient } from '@conduit/rpc-streams';
import {
  NestPinoLogger,
  bootConfig,
  createAccessLog,
  createLogger,
  createMetricsRegistry,
  dataSourceReadinessCheck,
  preflight,
  redisReadinessCheck,
  startTracing,
} from '@conduit/service-kit';
import { AppModule } from './app.module.js';
import { loadGatewayConfig } from './config.js';
import { createGatewayServer } from './http/gateway-server.js';
import { startMetricsPort } from './http/metrics-port.js';
import { setupOpenApi } from './openapi/openapi.js';
import { gatewayEntities } from './api-keys/entities.js';
import { gatewayMigrations } from './migrations/index.js';
import { ApiKeysService } from './api-keys/api-keys.service.js';
import { defaultConsoleDir, serveConsole } from './console/serve-console.js';

async function main(): Promise<void> {
  // First: the instrumentations must be in place before the database and Redis clients exist.
  await startTracing('gateway', { trustIncomingContext: false });
  const config = bootConfig('gateway', loadGatewayConfig);
  const logger = createLogger({ service: 'gateway', level: config.LOG_LEVEL });
  await preflight({
    databaseUrl: config.DATABASE_URL,
    redisUrl: config.REDIS_URL,
    ports: [
      { variable: 'GATEWAY_PORT', port: config.GATEWAY_PORT, host: config.GATEWAY_HOST },
      { variable: 'GATEWAY_METRICS_PORT', port: config.GATEWAY_METRICS_PORT, host: config.GATEWAY_HOST },
    ],
  });
  // Opened and migrated as the app starts (serviceDatabaseModule), before any module uses it.
  const database = {
    url: config.DATABASE_URL,
    schema: 'gateway',
    entities: gatewayEntities,
    migrations: gatewayMigrations,
    logger,
  };

  // Auto-pipelining: the rate-limit checks of concurrent requests in one turn of the event loop share one write.
  const redis = new Redis(config.REDIS_URL, {
    maxRetriesPerRequest: 2,
    enableAutoPipelining: true,
    commandTimeout: config.REDIS_COMMAND_TIMEOUT_MS,
  });
  const rpc = new RedisStreamsClient({
    url: config.REDIS_URL,
    prefix: config.REDIS_PREFIX,
    timeoutMs: config.RPC_TIMEOUT_MS,
    commandTimeoutMs: config.REDIS_COMMAND_TIMEOUT_MS,
  });
  await rpc.connect();
  const registry = createMetricsRegistry('gateway');

  const { adapter, fastify, routes, admitWith } = createGatewayServer({
    receiveTimeoutMs: config.REQUEST_RECEIVE_TIMEOUT_MS,
    accessLog: createAccessLog({ service: 'gateway', level: config.LOG_LEVEL }),
    registry,
  });

  // The app opens the data source (TypeOrmModule): the readiness checks, called only once it listens, find it there.
  const opened: { app?: NestFastifyApplication } = {};
  const readiness = [dataSourceReadinessCheck(() => opened.app?.get(DataSource)), redisReadinessCheck(redis)];
  const app = await NestFactory.create<NestFastifyApplication>(
    AppModule.forRoot({
      config,
      logger,
      database,
      redis,
      rpc,
      registry,
      readiness,
      routes,
      admitWith,
    }),
    adapter,
    // abortOnError: a database that fails to open (migrations) is one line on stderr, not a core dump.
    { bodyParser: false, logger: new NestPinoLogger(logger), abortOnError: false },
  );
  opened.app = app;
  if (config.BOOTSTRAP_API_KEY) {
    await app.get(ApiKeysService).ensureBootstrap(config.BOOTSTRAP_API_KEY, config.BOOTSTRAP_TENANT_ID);
  }
  setupOpenApi(app);
  const consoleDir = config.CONSOLE_DIR ?? defaultConsoleDir();
  if (!serveConsole(fastify, { dir: consoleDir })) logger.warn({ consoleDir }, 'web console not built: / says how');
  app.enableShutdownHooks();
  const metricsPort = await startMetricsPort({
    registry,
    checks: readiness,
    port: config.GATEWAY_METRICS_PORT,
    host: config.GATEWAY_HOST,
    receiveTimeoutMs: config.REQUEST_RECEIVE_TIMEOUT_MS,
    logger,
  });
  // Closes with the API app (SIGTERM): scrapes keep answering while the API drains.
  fastify.addHook('onClose', async () => metricsPort.close());
  await app.listen(config.GATEWAY_PORT, config.GATEWAY_HOST);
  logger.info({ url: await app.getUrl(), metrics: await metricsPort.getUrl() }, 'gateway listening');
}

main().catch((err: unknown) => {
  process.stderr.write(`gateway: failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
