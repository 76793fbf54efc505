import { Inject, Injectable, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { Logger } from 'pino';
import { WebhookTenants } from '@conduit/service-kit';
import { DISPATCHER_LOGGER, DISPATCHER_SETTINGS } from '../common/tokens.js';
import type { DispatcherSettings } from '../dispatcher-settings.js';

/**
 * Writes every tenant of the webhooks table into the Redis set the event publishers read (service-kit
 * webhook-tenants.ts), with its COMPLETE mark: at boot, whenever the connection is ready again (a restarted Redis
 * lost the set; until this, the publishers send every event), and every sweep period (a failover's older copy). Any
 * status counts: a disabled webhook may be enabled again without passing through a create.
 */
@Injectable()
export class WebhookTenantsRefresh implements OnApplicationBootstrap, OnModuleDestroy {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private stopped = false;

  constructor(
    private readonly ds: DataSource,
    private readonly tenants: WebhookTenants,
    @Inject(DISPATCHER_LOGGER) private readonly logger: Logger,
    @Inject(DISPATCHER_SETTINGS) private readonly settings: DispatcherSettings,
  ) {}

  onApplicationBootstrap(): void {
    this.tenants.onReady(() => void this.refresh());
    this.timer = setInterval(() => void this.refresh(), this.settings.sweepMs);
    this.timer.unref();
    void this.refresh();
  }

  async onModuleDestroy(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }

  /** One refresh at a time; a failure waits for the next (the publishers keep sending every event meanwhile). */
  refresh(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    this.running ??= this.write()
      .catch((err: unknown) => this.logger.debug({ err }, 'webhook tenants not refreshed; the next sweep retries'))
      .finally(() => (this.running = null));
    return this.running;
  }

  private async write(): Promise<void> {
    const rows = await this.ds.query<{ tenant_id: string }[]>(`SELECT DISTINCT tenant_id FROM webhooks`);
    await this.tenants.complete(rows.map((r) => r.tenant_id));
  }
}
