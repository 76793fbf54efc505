import { Global, Module, type DynamicModule, type OnApplicationShutdown } from '@nestjs/common';
import type { Logger } from 'pino';
import { QueueProducers, QueuesModule, serviceDatabaseModule, type ServiceDatabase } from '@conduit/service-kit';
import { QUEUES } from '@conduit/contracts';
import type { Registry } from 'prom-client';
import { MONITORING_LOGGER, MONITORING_SETTINGS } from './common/tokens.js';
import { monitoringOutbox } from './outbox/monitoring-outbox.js';
import { MonitoringMetrics } from './telemetry/monitoring-metrics.js';
import type { MonitoringSettings } from './monitoring-settings.js';

/** What the service is built from; main.ts makes them from the config, tests from their own schema and prefix. */
export interface MonitoringDeps {
  /** main.ts: the monitoring options (opened and migrated at boot); tests: a data source they migrated. */
  database: ServiceDatabase;
  logger: Logger;
  settings: MonitoringSettings;
  /** The service's Prometheus registry: its series are registered there (and served on /metrics when HTTP runs). */
  registry: Registry;
  /** Closes what the caller opened for the app (database pool, Redis) once Nest has shut down. */
  onShutdown?: () => Promise<void>;
}

/** Closes what the caller opened once Nest has shut down (the queues close with QueuesModule). */
class ConnectionCloser implements OnApplicationShutdown {
  constructor(private readonly close: (() => Promise<void>) | undefined) {}

  async onApplicationShutdown(): Promise<void> {
    await this.close?.();
  }
}

/** Provides the shared infrastructure to every feature module. */
@Global()
@Module({})
export class MonitoringCoreModule {
  static forRoot(deps: MonitoringDeps): DynamicModule {
    // Every queue of the deployment: monitoring adds alert events to `events.webhooks` and reports the depth of all.
    const queuesModule = QueuesModule.forRoot({
      redisUrl: deps.settings.redisUrl,
      redisPrefix: deps.settings.redisPrefix,
      logger: deps.logger,
      produce: Object.values(QUEUES),
      consume: [QUEUES.eventsMonitoring, QUEUES.logs],
      outbox: monitoringOutbox(deps.settings),
    });
    return {
      module: MonitoringCoreModule,
      // The DataSource (its class is the token) and the entity manager: TypeOrmModule provides them globally.
      imports: [serviceDatabaseModule(deps.database), queuesModule],
      providers: [
        { provide: MONITORING_LOGGER, useValue: deps.logger },
        { provide: MONITORING_SETTINGS, useValue: deps.settings },
        {
          provide: MonitoringMetrics,
          useFactory: (queues: QueueProducers) => new MonitoringMetrics(deps.registry, queues),
          inject: [QueueProducers],
        },
        { provide: ConnectionCloser, useFactory: () => new ConnectionCloser(deps.onShutdown) },
      ],
      exports: [MONITORING_LOGGER, MONITORING_SETTINGS, MonitoringMetrics],
    };
  }
}
