/**
 * What the catalog tells other services of a change of a tenant's pipelines or connectors (issue 18):
 * - the tenant's catalog generation (contracts `CATALOG_GENERATION_KEY_PREFIX`, service-kit `TenantGenerations`):
 *   each change runs inside `change`, marked pending before its commit and bumped after it. The scheduler holds the
 *   pipeline snapshots Trigger Run takes and uses one only while the generation reads as it did before it asked, and
 *   none while a change is pending, so no trigger takes a pipeline as it was before a committed change;
 * - a connector's update or delete is announced on `connectors:changed` after the commit: executors drop their
 *   cached config (apps/executor/src/connectors/connector-cache.ts); one that misses it (disconnected) forgets its
 *   whole cache when it reconnects, and its entries expire after a short TTL anyway. It never fails the change.
 */
import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { CATALOG_GENERATION_KEY_PREFIX, CONNECTORS_CHANGED_CHANNEL, type ConnectorChanged } from '@conduit/contracts';
import { TenantGenerations } from '@conduit/service-kit';

export const CATALOG_CHANGES = Symbol('CATALOG_CHANGES');

export interface CatalogChanges {
  /**
   * Runs `write`, which commits a change of the tenant's pipelines or connectors, so that no held snapshot is used
   * from before its commit to after its bump. A 503 without the change when Redis does not take the mark.
   */
  change<T>(tenantId: string, write: () => Promise<T>): Promise<T>;
  /** After the commit of a connector's update (`version`: its new revision) or delete (null). Never throws. */
  connectorChanged(change: ConnectorChanged): Promise<void>;
}

/** Tests of the catalog alone: nobody holds copies. */
export class NoCatalogChanges implements CatalogChanges {
  change<T>(_tenantId: string, write: () => Promise<T>): Promise<T> {
    return write();
  }

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
    this.generations = new TenantGenerations(
      this.publisher,
      `${settings.redisPrefix}${CATALOG_GENERATION_KEY_PREFIX}`,
      {
        onBumpFailed: (err, tenantId) =>
          logger.warn(
            { err, tenant_id: tenantId },
            "could not bump the tenant's catalog generation; its triggers ask the catalog until the change's mark lapses (60 s)",
          ),
      },
    );
    this.channel = `${settings.redisPrefix}${CONNECTORS_CHANGED_CHANNEL}`;
  }

  change<T>(tenantId: string, write: () => Promise<T>): Promise<T> {
    return this.generations.around(tenantId, write);
  }

  async connectorChanged(change: ConnectorChanged): Promise<void> {
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
