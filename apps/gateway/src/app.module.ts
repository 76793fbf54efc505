import { type DynamicModule, Module } from '@nestjs/common';
import { APP_FILTER, APP_GUARD } from '@nestjs/core';
import type { ClientProxy } from '@nestjs/microservices';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { type ReadinessCheck, type ServiceDatabase, OpsModule, serviceDatabaseModule } from '@conduit/service-kit';
import type { GatewayConfig } from './config.js';
import {
  EARLY_ADMISSION,
  GATEWAY_CONFIG,
  GATEWAY_LOGGER,
  METRICS_REGISTRY,
  REDIS,
  ROUTE_TABLE,
  RPC_CLIENT,
} from './tokens.js';
import type { RouteTable } from './http/routes.js';
import type { GatewayServer } from './http/gateway-server.js';
import { AUTH_CONFIG } from './auth/auth.tokens.js';
import { AccessGuard } from './access/access.guard.js';
import { RouteInputGuard } from './access/route-input.guard.js';
import { ProblemFilter } from './http/problem.filter.js';
import { BackendClient } from './forwarding/backend.client.js';
import { AuthModule } from './auth/auth.module.js';
import { ProjectsController } from './catalog/projects.controller.js';
import { PipelinesController } from './catalog/pipelines.controller.js';
import { ConnectorsController } from './catalog/connectors.controller.js';
import { CatalogueController } from './catalog/catalogue.controller.js';
import { ApiKeysController } from './api-keys/api-keys.controller.js';
import { JobsController } from './jobs/jobs.controller.js';
import { RunsController } from './jobs/runs.controller.js';
import { MonitoringController } from './monitoring/monitoring.controller.js';
import { WebhooksController } from './webhooks/webhooks.controller.js';

/** What main.ts builds before Nest starts: connections, and the config validated once. */
export interface GatewayRuntime {
  config: GatewayConfig;
  logger: Logger;
  /** main.ts: the gateway schema's options (opened and migrated at boot); tests: a data source they migrated. */
  database: ServiceDatabase;
  redis: Redis;
  rpc: ClientProxy;
  registry: Registry;
  readiness: ReadinessCheck[];
  routes: RouteTable;
  /** The server's hook that admits requests with a body before reading it (http/admit-before-body.ts). */
  admitWith: GatewayServer['admitWith'];
}

/** Every controller of the public API. */
export const GATEWAY_CONTROLLERS = [
  ProjectsController,
  PipelinesController,
  ConnectorsController,
  CatalogueController,
  JobsController,
  RunsController,
  MonitoringController,
  WebhooksController,
  ApiKeysController,
] as const;

@Module({})
export class AppModule {
  static forRoot(runtime: GatewayRuntime): DynamicModule {
    const shared = [
      { provide: GATEWAY_CONFIG, useValue: runtime.config },
      { provide: AUTH_CONFIG, useValue: runtime.config },
      { provide: GATEWAY_LOGGER, useValue: runtime.logger },
      { provide: REDIS, useValue: runtime.redis },
      { provide: RPC_CLIENT, useValue: runtime.rpc },
      { provide: ROUTE_TABLE, useValue: runtime.routes },
      { provide: METRICS_REGISTRY, useValue: runtime.registry },
    ];
    return {
      module: AppModule,
      global: true,
      // /healthz and /readyz for load balancers; /metrics only on GATEWAY_METRICS_PORT (main.ts).
      // TypeOrmModule provides the DataSource (its class is the token) globally, and closes it with the app.
      imports: [serviceDatabaseModule(runtime.database), OpsModule.forRoot({ checks: runtime.readiness }), AuthModule],
      controllers: [...GATEWAY_CONTROLLERS],
      providers: [
        ...shared,
        BackendClient,
        AccessGuard,
        { provide: APP_GUARD, useExisting: AccessGuard },
        {
          // The guard's admission also runs before a request's body is read (http/admit-before-body.ts).
          provide: EARLY_ADMISSION,
          inject: [AccessGuard],
          useFactory: (guard: AccessGuard) => runtime.admitWith((request, reply) => guard.admit(request, reply)),
        },
        // After access: a caller learns what a route takes only once it may call it.
        { provide: APP_GUARD, useClass: RouteInputGuard },
        { provide: APP_FILTER, useClass: ProblemFilter },
      ],
      exports: shared.map((p) => p.provide),
    };
  }
}
