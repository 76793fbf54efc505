/**
 * Listens on `${REDIS_PREFIX}connectors:changed` (the catalog's announcements of connector updates and deletes) and
 * drops the connector's cached config (connector-cache.ts). Pub/sub delivers only to connected subscribers: whenever
 * the subscription is made again after a disconnect, the whole cache is cleared, since announcements may have been lost.
 */
import { CONNECTORS_CHANGED_CHANNEL, connectorChangedSchema, type ConnectorChanged } from '@conduit/contracts';
import { ChannelSubscription } from '@conduit/service-kit';
import type { Logger } from 'pino';
import type { ConnectorCache } from './connector-cache.js';

export class ConnectorChangeListener {
  private readonly subscription: ChannelSubscription<ConnectorChanged>;

  constructor(redisUrl: string, redisPrefix: string, cache: ConnectorCache, logger: Logger) {
    this.subscription = new ChannelSubscription({
      redisUrl,
      channel: `${redisPrefix}${CONNECTORS_CHANGED_CHANNEL}`,
      schema: connectorChangedSchema,
      name: 'connector change',
      logger,
      onMessage: ({ tenant_id, connector_id, version }) => cache.drop(tenant_id, connector_id, version),
      // Unknown what changed: nothing held can be trusted.
      onMalformed: () => cache.clear(),
      // ioredis subscribes again by itself after a reconnect; what was announced in between is unknown.
      onReady: () => cache.clear(),
    });
  }

  get channel(): string {
    return this.subscription.channel;
  }

  start(): Promise<void> {
    return this.subscription.start();
  }

  close(): Promise<void> {
    return this.subscription.close();
  }
}
