import { Global, Module, type DynamicModule, type OnApplicationShutdown } from '@nestjs/common';
import type { Logger } from 'pino';
import { Redis } from 'ioredis';
import { WebhookTenants, reconnectDelay, serviceDatabaseModule, type ServiceDatabase } from '@conduit/service-kit';
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
  constructor(
    private readonly webhookTenants: Redis,
    private readonly close: (() => Promise<void>) | undefined,
  ) {}

  async onApplicationShutdown(): Promise<void> {
    await this.webhookTenants.quit().catch(() => this.webhookTenants.disconnect());
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
    // The tenants with webhooks, which the event publishers read (webhook-tenants-refresh.ts): a connection of its own,
    // failing a command at once while Redis is away (a webhook create answers 503 then).
    const webhookTenantsRedis = new Redis(deps.settings.redisUrl, {
      maxRetriesPerRequest: 1,
      retryStrategy: reconnectDelay,
    });
    webhookTenantsRedis.on('error', (err) => deps.logger.debug({ err }, 'webhook tenants connection error'));
    return {
      module: DispatcherCoreModule,
      // The DataSource (its class is the token) and the entity manager: TypeOrmModule provides them globally.
      imports: [serviceDatabaseModule(deps.database), queuesModule],
      providers: [
        { provide: DISPATCHER_LOGGER, useValue: deps.logger },
        { provide: DISPATCHER_SETTINGS, useValue: deps.settings },
        { provide: SecretBox, useValue: new SecretBox(deps.settings.secretsKey) },
        { provide: WebhookTenants, useValue: new WebhookTenants(webhookTenantsRedis, deps.settings.redisPrefix) },
        { provide: ConnectionCloser, useFactory: () => new ConnectionCloser(webhookTenantsRedis, deps.onShutdown) },
      ],
      exports: [DISPATCHER_LOGGER, DISPATCHER_SETTINGS, SecretBox, WebhookTenants],
    };
  }
}
