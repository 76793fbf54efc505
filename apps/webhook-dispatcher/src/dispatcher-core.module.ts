import { Global, Module, type DynamicModule, type OnApplicationShutdown } from '@nestjs/common';
import type { Logger } from 'pino';
import { serviceDatabaseModule, type ServiceDatabase } from '@conduit/service-kit';
import { DISPATCHER_LOGGER, DISPATCHER_SETTINGS } from './common/tokens.js';
import { QUEUES } from '@conduit/contracts';
import { QueuesModule } from '@conduit/service-kit';
import { dispatcherOutbox } from './outbox/dispatcher-outbox.js';
import { SecretBox } from './security/secret-box.js';
import type { DispatcherSettings } from './dispatcher-settings.js';

/** What the dispatcher is built from; main.ts makes them from the config, tests from their own schema and prefix. */
export interface DispatcherDeps {
  /** main.ts: the dispatcher's options (opened and migrated at boot); tests: a data source they migrated. */
  database: ServiceDatabase;
  logger: Logger;
  settings: DispatcherSettings;
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
export class DispatcherCoreModule {
  static forRoot(deps: DispatcherDeps): DynamicModule {
    const queuesModule = QueuesModule.forRoot({
      redisUrl: deps.settings.redisUrl,
      redisPrefix: deps.settings.redisPrefix,
      logger: deps.logger,
      produce: [QUEUES.webhookDeliveries, QUEUES.eventsMonitoring],
      consume: [QUEUES.webhookDeliveries, QUEUES.eventsWebhooks],
      outbox: dispatcherOutbox(deps.settings),
    });
    return {
      module: DispatcherCoreModule,
      // The DataSource (its class is the token) and the entity manager: TypeOrmModule provides them globally.
      imports: [serviceDatabaseModule(deps.database), queuesModule],
      providers: [
        { provide: DISPATCHER_LOGGER, useValue: deps.logger },
        { provide: DISPATCHER_SETTINGS, useValue: deps.settings },
        { provide: SecretBox, useValue: new SecretBox(deps.settings.secretsKey) },
        { provide: ConnectionCloser, useFactory: () => new ConnectionCloser(deps.onShutdown) },
      ],
      exports: [DISPATCHER_LOGGER, DISPATCHER_SETTINGS, SecretBox],
    };
  }
}
