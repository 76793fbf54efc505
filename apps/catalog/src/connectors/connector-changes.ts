/**
 * Announces a connector's update or delete to the executors, which cache connector configs by version
 * (apps/executor/src/connectors/connector-cache.ts) and drop their copy on it. Sent after the change commits, on Redis
 * pub/sub: an executor that misses it (disconnected) forgets its whole cache when it reconnects, and every entry expires
 * after a short TTL anyway, so a lost announcement delays a change by that TTL at most.
 */
import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { CONNECTORS_CHANGED_CHANNEL, type ConnectorChanged } from '@conduit/contracts';

export const CONNECTOR_CHANGES = Symbol('CONNECTOR_CHANGES');

export interface ConnectorChanges {
  /** Never throws: the change has committed whatever happens to its announcement. */
  announce(change: ConnectorChanged): Promise<void>;
}

/** Tests of the catalog alone: nobody caches connectors. */
export class NoConnectorChanges implements ConnectorChanges {
  async announce(): Promise<void> {}
}

export class RedisConnectorChanges implements ConnectorChanges {
  private readonly publisher: Redis;
  private readonly channel: string;

  constructor(
    settings: { redisUrl: string; redisPrefix: string },
    private readonly logger: Logger,
  ) {
    this.publisher = new Redis(settings.redisUrl, { maxRetriesPerRequest: 2 });
    this.publisher.on('error', (err) => logger.warn({ err }, 'connector changes publisher connection error'));
    this.channel = `${settings.redisPrefix}${CONNECTORS_CHANGED_CHANNEL}`;
  }

  async announce(change: ConnectorChanged): Promise<void> {
    try {
      await this.publisher.publish(this.channel, JSON.stringify(change));
    } catch (err) {
      this.logger.warn(
        { err, connector_id: change.connector_id },
        'could not announce a connector change; executors see it when their cached copy expires',
      );
    }
  }

  async close(): Promise<void> {
    await this.publisher.quit().catch(() => this.publisher.disconnect());
  }
}
