/**
 * What the catalog tells other services after a change of a tenant's pipelines or connectors has committed, before it
 * answers the change (issue 18):
 * - the tenant's catalog generation is bumped (contracts `CATALOG_GENERATION_KEY_PREFIX`): the scheduler holds the
 *   pipeline snapshots Trigger Run takes and uses one only while the generation is the one it read before asking, so
 *   a trigger sent after a change's answer never takes the pipeline as it was before it;
 * - a connector's update or delete is announced on `connectors:changed`: executors drop their cached config
 *   (apps/executor/src/connectors/connector-cache.ts); one that misses it (disconnected) forgets its whole cache when it
 *   reconnects, and its entries expire after a short TTL anyway.
 * Neither ever fails the change, which has committed whatever happens to them. Should Redis refuse the bump, the
 * scheduler's copies still expire within their TTL (30 s): that is the bound on staleness after a Redis failure.
 */
import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { CATALOG_GENERATION_KEY_PREFIX, CONNECTORS_CHANGED_CHANNEL, type ConnectorChanged } from '@conduit/contracts';
import { TenantGenerations } from '@conduit/service-kit';

export const CATALOG_CHANGES = Symbol('CATALOG_CHANGES');

export interface CatalogChanges {
  /** A pipeline or connector of the tenant was made, changed or deleted. Never throws. */
  changed(tenantId: string): Promise<void>;
  /** A connector was updated (`version`: its new revision) or deleted (`version`: null). Never throws. */
  connectorChanged(change: ConnectorChanged): Promise<void>;
}

/** Tests of the catalog alone: nobody holds copies. */
export class NoCatalogChanges implements CatalogChanges {
  async changed(): Promise<void> {}
  async connectorChanged(): Promise<void> {}
}

export class RedisCatalogChanges implements CatalogChanges {
  private readonly publisher: Redis;
  private readonly generations: TenantGenerations;
  private readonly channel: string;

  constructor(
    settings: { redisUrl: string; redisPrefix: string },
    private readonly logger: Logger,
  ) {
    this.publisher = new Redis(settings.redisUrl, { maxRetriesPerRequest: 2 });
    this.publisher.on('error', (err) => logger.warn({ err }, 'catalog changes connection error'));
    this.generations = new TenantGenerations(this.publisher, `${settings.redisPrefix}${CATALOG_GENERATION_KEY_PREFIX}`);
    this.channel = `${settings.redisPrefix}${CONNECTORS_CHANGED_CHANNEL}`;
  }

  async changed(tenantId: string): Promise<void> {
    try {
      await this.generations.bump(tenantId);
    } catch (err) {
      this.logger.warn(
        { err, tenant_id: tenantId },
        "could not bump the tenant's catalog generation; triggers may take the pipelines as they were for up to 30 s",
      );
    }
  }

  async connectorChanged(change: ConnectorChanged): Promise<void> {
    await Promise.all([this.changed(change.tenant_id), this.announce(change)]);
  }

  private async announce(change: ConnectorChanged): Promise<void> {
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
