import { Global, Module, type DynamicModule, type OnApplicationShutdown } from '@nestjs/common';
import type { Logger } from 'pino';
import { serviceDatabaseModule, type ServiceDatabase } from '@conduit/service-kit';
import { RedisStreamsClient } from '@conduit/rpc-streams';
import { SCHEDULER_LOGGER, SCHEDULER_SETTINGS } from './common/tokens.js';
import { Redis } from 'ioredis';
import { CATALOG_GENERATION_KEY_PREFIX, QUEUES } from '@conduit/contracts';
import { QueuesModule, TenantGenerations, WebhookTenants, reconnectDelay } from '@conduit/service-kit';
import { PipelineSnapshots } from './catalog-client/pipeline-snapshots.js';
import { HeldSnapshots } from './catalog-client/held-snapshots.js';
import { schedulerOutbox } from './outbox/scheduler-outbox.js';
import { RunCancelPublisher } from './runs/run-cancel-publisher.js';
import type { SchedulerSettings } from './scheduler-settings.js';
import type { Registry } from 'prom-client';
import { FencedReportsCounter } from './runs/fenced-reports.counter.js';

/** What the scheduler is built from; main.ts makes them from the config, tests from their own schema and prefix. */
export interface SchedulerDeps {
  /** main.ts: the scheduler's options (opened and migrated at boot); tests: a data source they migrated. */
  database: ServiceDatabase;
  logger: Logger;
  settings: SchedulerSettings;
  /** Closes what the caller opened for the app (database pool, Redis) once Nest has shut down. */
  onShutdown?: () => Promise<void>;
  /** The service's /metrics registry, when it serves one. */
  registry?: Registry;
}

/** Closes the cancel publisher and the catalog's connections after every worker has stopped (in onModuleDestroy). */
class ConnectionCloser implements OnApplicationShutdown {
  constructor(
    private readonly cancels: RunCancelPublisher,
    private readonly catalog: RedisStreamsClient,
    private readonly generations: Redis | undefined,
    private readonly webhookTenants: Redis | undefined,
    private readonly close: (() => Promise<void>) | undefined,
  ) {}

  async onApplicationShutdown(): Promise<void> {
    await this.cancels.close();
    await this.catalog.close();
    await this.generations?.quit().catch(() => this.generations?.disconnect());
    await this.webhookTenants?.quit().catch(() => this.webhookTenants?.disconnect());
    await this.close?.();
  }
}

/** Provides the shared infrastructure to every feature module. */
@Global()
@Module({})
export class SchedulerCoreModule {
  static forRoot(deps: SchedulerDeps): DynamicModule {
    const cancels = new RunCancelPublisher(deps.settings);
    const catalog = new RedisStreamsClient({
      url: deps.settings.redisUrl,
      prefix: deps.settings.redisPrefix,
      timeoutMs: deps.settings.catalogTimeoutMs,
    });
    // The tenants' catalog generations, read at each trigger to use the pipeline snapshots held (held-snapshots.ts);
    // no connection is opened when none is held.
    const generationsRedis =
      deps.settings.snapshotHoldMs > 0 ? new Redis(deps.settings.redisUrl, { maxRetriesPerRequest: 2 }) : undefined;
    generationsRedis?.on('error', (err) => deps.logger.debug({ err }, 'catalog generations connection error'));
    // Which tenants have webhooks, asked by the outbox relay so that other tenants' events skip the dispatcher (a
    // failed or slow answer sends them all); no connection where this replica does not relay.
    const webhookTenantsRedis = deps.settings.background.relay
      ? new Redis(deps.settings.redisUrl, { maxRetriesPerRequest: 1, retryStrategy: reconnectDelay, keepAlive: 10_000 })
      : undefined;
    webhookTenantsRedis?.on('error', (err) => deps.logger.debug({ err }, 'webhook tenants connection error'));
    const queuesModule = QueuesModule.forRoot({
      redisUrl: deps.settings.redisUrl,
      redisPrefix: deps.settings.redisPrefix,
      logger: deps.logger,
      // events.scheduler too: the reaper asks whether reports wait for a retry (run-reaper.ts).
      produce: [
        QUEUES.runs,
        QUEUES.eventsMonitoring,
        QUEUES.eventsWebhooks,
        QUEUES.schedulerTicks,
        QUEUES.eventsScheduler,
      ],
      consume: [QUEUES.eventsScheduler],
      outbox: schedulerOutbox(
        deps.settings,
        webhookTenantsRedis &&
          new WebhookTenants(webhookTenantsRedis, deps.settings.redisPrefix, {
            distrustMs: deps.settings.webhookTenantsDistrustMs,
          }),
      ),
    });
    return {
      module: SchedulerCoreModule,
      // The DataSource (its class is the token) and the entity manager: TypeOrmModule provides them globally.
      imports: [serviceDatabaseModule(deps.database), queuesModule],
      providers: [
        { provide: SCHEDULER_LOGGER, useValue: deps.logger },
        { provide: SCHEDULER_SETTINGS, useValue: deps.settings },
        { provide: RunCancelPublisher, useValue: cancels },
        {
          provide: PipelineSnapshots,
          useValue: generationsRedis
            ? new PipelineSnapshots(catalog, {
                generations: new TenantGenerations(
                  generationsRedis,
                  `${deps.settings.redisPrefix}${CATALOG_GENERATION_KEY_PREFIX}`,
                ),
                held: new HeldSnapshots({ ttlMs: deps.settings.snapshotHoldMs }),
                logger: deps.logger,
              })
            : new PipelineSnapshots(catalog),
        },
        {
          provide: ConnectionCloser,
          useFactory: () =>
            new ConnectionCloser(cancels, catalog, generationsRedis, webhookTenantsRedis, deps.onShutdown),
        },
        { provide: FencedReportsCounter, useValue: new FencedReportsCounter(deps.registry) },
      ],
      exports: [SCHEDULER_LOGGER, SCHEDULER_SETTINGS, RunCancelPublisher, PipelineSnapshots, FencedReportsCounter],
    };
  }
}
