import { Global, Module, type DynamicModule, type OnApplicationShutdown } from '@nestjs/common';
import type { Logger } from 'pino';
import { serviceDatabaseModule, type ServiceDatabase } from '@conduit/service-kit';
import type { Registry } from 'prom-client';
import { MONITORING_LOGGER, MONITORING_SETTINGS } from './common/tokens.js';
import { MonitoringQueues } from './queues/monitoring-queues.js';
import { OutboxRelay } from './outbox/outbox-relay.js';
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

/** Closes the queues after every worker has stopped (those stop in onModuleDestroy). */
class ConnectionCloser implements OnApplicationShutdown {
  constructor(
    private readonly queues: MonitoringQueues,
    private readonly close: (() => Promise<void>) | undefined,
  ) {}

  async onApplicationShutdown(): Promise<void> {
    await this.queues.close();
    await this.close?.();
  }
}

/** Provides the shared infrastructure to every feature module. */
@Global()
@Module({})
export class MonitoringCoreModule {
  static forRoot(deps: MonitoringDeps): DynamicModule {
    const queues = new MonitoringQueues(deps.settings);
    return {
      module: MonitoringCoreModule,
      // The DataSource (its class is the token) and the entity manager: TypeOrmModule provides them globally.
      imports: [serviceDatabaseModule(deps.database)],
      providers: [
        { provide: MONITORING_LOGGER, useValue: deps.logger },
        { provide: MONITORING_SETTINGS, useValue: deps.settings },
        { provide: MonitoringQueues, useValue: queues },
        { provide: MonitoringMetrics, useValue: new MonitoringMetrics(deps.registry, queues) },
        { provide: ConnectionCloser, useFactory: () => new ConnectionCloser(queues, deps.onShutdown) },
        OutboxRelay,
      ],
      exports: [MONITORING_LOGGER, MONITORING_SETTINGS, MonitoringQueues, MonitoringMetrics, OutboxRelay],
    };
  }
}
