import { Inject, Injectable, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { Logger } from 'pino';
import { DeliveryQueue } from './delivery-queue.js';
import { AttemptRunner } from './attempt-runner.js';
import { DISPATCHER_LOGGER, DISPATCHER_SETTINGS } from '../common/tokens.js';
import type { DispatcherSettings } from '../dispatcher-settings.js';

const BATCH = 500;

/**
 * Queues again the attempts whose queue job was lost: written but never queued (a crash or Redis failing right
 * after the commit), or claimed by a worker that died while sending. Queueing one that is still queued is a no-op
 * (the job id is the attempt id), so replicas may sweep at the same time.
 */
@Injectable()
export class DeliverySweeper implements OnApplicationBootstrap, OnModuleDestroy {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<unknown> | null = null;

  constructor(
    private readonly ds: DataSource,
    private readonly deliveries: DeliveryQueue,
    private readonly runner: AttemptRunner,
    @Inject(DISPATCHER_LOGGER) private readonly logger: Logger,
    @Inject(DISPATCHER_SETTINGS) private readonly settings: DispatcherSettings,
  ) {}

  onApplicationBootstrap(): void {
    if (!this.settings.background.sweep) return;
    this.timer = setInterval(() => {
      if (this.running) return;
      this.running = this.sweep()
        .catch((err: unknown) => this.logger.warn({ err }, 'delivery sweep failed; the next one retries'))
        .finally(() => (this.running = null));
    }, this.settings.sweepMs);
    this.timer.unref();
  }

  async onModuleDestroy(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.running?.catch(() => undefined);
  }

  /** Queues the lost attempts due for longer than one sweep period; answers how many. */
  async sweep(now = new Date()): Promise<number> {
    const rows = await this.ds.query<{ id: string; tenant_id: string }[]>(
      `SELECT id, tenant_id FROM deliveries
       WHERE status = 'pending' AND due_at < $1 AND (claimed_at IS NULL OR claimed_at < $2)
       ORDER BY due_at LIMIT ${BATCH}`,
      [new Date(now.getTime() - this.settings.sweepMs), new Date(now.getTime() - this.runner.staleClaimMs)],
    );
    await this.deliveries.enqueue(rows.map((r) => ({ id: r.id, tenantId: r.tenant_id, delayMs: 0 })));
    return rows.length;
  }
}
