import { Global, Module, type DynamicModule, type OnApplicationShutdown } from '@nestjs/common';
import type { Logger } from 'pino';
import { serviceDatabaseModule, type ServiceDatabase } from '@conduit/service-kit';
import { DISPATCHER_LOGGER, DISPATCHER_SETTINGS } from './common/tokens.js';
import { DispatcherQueues } from './queues/dispatcher-queues.js';
import { OutboxRelay } from './outbox/outbox-relay.js';
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

/** Closes the queues after every worker has stopped (those stop in onModuleDestroy). */
class ConnectionCloser implements OnApplicationShutdown {
  constructor(
    private readonly queues: DispatcherQueues,
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
export class DispatcherCoreModule {
  static forRoot(deps: DispatcherDeps): DynamicModule {
    const queues = new DispatcherQueues(deps.settings);
    return {
      module: DispatcherCoreModule,
      // The DataSource (its class is the token) and the entity manager: TypeOrmModule provides them globally.
      imports: [serviceDatabaseModule(deps.database)],
      providers: [
        { provide: DISPATCHER_LOGGER, useValue: deps.logger },
        { provide: DISPATCHER_SETTINGS, useValue: deps.settings },
        { provide: DispatcherQueues, useValue: queues },
        { provide: SecretBox, useValue: new SecretBox(deps.settings.secretsKey) },
        { provide: ConnectionCloser, useFactory: () => new ConnectionCloser(queues, deps.onShutdown) },
        OutboxRelay,
      ],
      exports: [DISPATCHER_LOGGER, DISPATCHER_SETTINGS, DispatcherQueues, SecretBox, OutboxRelay],
    };
  }
}
