import { Inject, Injectable, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { Logger } from 'pino';
import { WebhookTenants } from '@conduit/service-kit';
import { DISPATCHER_LOGGER, DISPATCHER_SETTINGS } from '../common/tokens.js';
import type { DispatcherSettings } from '../dispatcher-settings.js';

/**
 * How often the set is written at most apart (the dispatcher's sweep, when shorter): three times within the set's
 * life (15 s, WebhookTenants' ttlMs), which the publishers' distrust after a drop outlasts (webhook-tenants.ts).
 */
const WEBHOOK_TENANTS_REFRESH_MS = 5_000;

/**
 * Writes every tenant of the webhooks table into the Redis set the event publishers read (service-kit
 * webhook-tenants.ts), with its COMPLETE mark: at boot, whenever the connection is ready again (a restarted Redis
 * lost the set; until this, the publishers send every event), and every WEBHOOK_TENANTS_REFRESH_MS (a failover's
 * older copy; the set expires unless written again). Any status counts: a disabled webhook may be enabled again
 * without passing through a create.
 */
@Injectable()
export class WebhookTenantsRefresh implements OnApplicationBootstrap, OnModuleDestroy {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  /** Asked for while a write was under way: that write's read may predate what asked, so another follows it. */
  private again = false;
  private stopped = false;

  constructor(
    private readonly ds: DataSource,
    private readonly tenants: WebhookTenants,
    @Inject(DISPATCHER_LOGGER) private readonly logger: Logger,
    @Inject(DISPATCHER_SETTINGS) private readonly settings: DispatcherSettings,
  ) {}

  onApplicationBootstrap(): void {
    this.tenants.onReady(() => this.refresh());
    this.timer = setInterval(() => this.refresh(), Math.min(this.settings.sweepMs, WEBHOOK_TENANTS_REFRESH_MS));
    this.timer.unref();
    this.refresh();
  }

  async onModuleDestroy(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }

  /** Writes the set now, or once the write under way is done; a failure waits for the next sweep. */
  refresh(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.write()
      .catch((err: unknown) =>
        this.logger.warn(
          { err },
          'webhook tenants not written: once the set lapses (15 s after its last write), every run event goes to the dispatcher',
        ),
      )
      .finally(() => {
        this.running = null;
        if (this.again) {
          this.again = false;
          this.refresh();
        }
      });
  }

  private async write(): Promise<void> {
    await this.tenants.complete(async () =>
      (await this.ds.query<{ tenant_id: string }[]>(`SELECT DISTINCT tenant_id FROM webhooks`)).map((r) => r.tenant_id),
    );
  }
}
