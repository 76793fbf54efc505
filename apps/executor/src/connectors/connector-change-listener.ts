/**
 * Listens on `${REDIS_PREFIX}connectors:changed` (the catalog's announcements of connector updates and deletes) and
 * drops the connector's cached config (connector-cache.ts). Pub/sub delivers only to connected subscribers: whenever
 * the subscription is made again after a disconnect, the whole cache is cleared, since announcements may have been lost.
 */
import { Redis } from 'ioredis';
import { CONNECTORS_CHANGED_CHANNEL, connectorChangedSchema } from '@conduit/contracts';
import type { Logger } from 'pino';
import type { ConnectorCache } from './connector-cache.js';

export class ConnectorChangeListener {
  private subscriber: Redis | null = null;
  readonly channel: string;

  constructor(
    private readonly redisUrl: string,
    redisPrefix: string,
    private readonly cache: ConnectorCache,
    private readonly logger: Logger,
  ) {
    this.channel = `${redisPrefix}${CONNECTORS_CHANGED_CHANNEL}`;
  }

  async start(): Promise<void> {
    const subscriber = new Redis(this.redisUrl, { maxRetriesPerRequest: null, lazyConnect: true });
    subscriber.on('error', (err) => this.logger.warn({ err }, 'connector changes subscriber connection error'));
    subscriber.on('message', (_channel: string, text: string) => this.onMessage(text));
    // ioredis subscribes again by itself after a reconnect; what was announced in between is unknown.
    subscriber.on('ready', () => this.cache.clear());
    await subscriber.connect();
    await subscriber.subscribe(this.channel);
    this.subscriber = subscriber;
  }

  async close(): Promise<void> {
    const subscriber = this.subscriber;
    this.subscriber = null;
    if (subscriber) await subscriber.quit().catch(() => subscriber.disconnect());
  }

  private onMessage(text: string): void {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    const message = connectorChangedSchema.safeParse(parsed);
    if (!message.success) {
      // Unknown what changed: nothing held can be trusted.
      this.logger.warn({ channel: this.channel }, 'malformed connector change message; cleared the connector cache');
      this.cache.clear();
      return;
    }
    const { tenant_id, connector_id, version } = message.data;
    this.cache.drop(tenant_id, connector_id, version);
  }
}
