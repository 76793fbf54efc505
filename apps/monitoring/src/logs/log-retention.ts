import { Inject, Injectable, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { Logger } from 'pino';
import { schemaOf } from '@conduit/service-kit';
import { MONITORING_LOGGER, MONITORING_SETTINGS } from '../common/tokens.js';
import type { MonitoringSettings } from '../monitoring-settings.js';

/** Rows deleted per statement, so a large backlog never holds one long transaction. */
const DELETE_BATCH = 10_000;
/** Event ids are kept past any redelivery by BullMQ (failed jobs live 7 days), then forgotten. */
const PROCESSED_EVENTS_KEEP_DAYS = 8;

export interface CleanupResult {
  logLines: number;
  processedEvents: number;
}

/**
 * The scheduled cleanup: removes run log lines older than the retention (LOG_RETENTION_DAYS) and event ids past
 * redelivery. One replica cleans at a time (a session advisory lock); the others skip the round.
 */
@Injectable()
export class LogRetention implements OnApplicationBootstrap, OnModuleDestroy {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<unknown> | null = null;

  constructor(
    private readonly ds: DataSource,
    @Inject(MONITORING_LOGGER) private readonly logger: Logger,
    @Inject(MONITORING_SETTINGS) private readonly settings: MonitoringSettings,
  ) {}

  onApplicationBootstrap(): void {
    if (!this.settings.background.cleanup) return;
    const tick = () => {
      if (this.running) return;
      this.running = this.cleanup()
        .then((r) => r && r.logLines > 0 && this.logger.info(r, 'old run logs removed'))
        .catch((err: unknown) => this.logger.warn({ err }, 'log cleanup failed'))
        .finally(() => (this.running = null));
    };
    this.timer = setInterval(tick, this.settings.cleanupIntervalMs);
    this.timer.unref();
    tick();
  }

  async onModuleDestroy(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.running;
  }

  /** One pass; answers what it removed, or null when another replica is cleaning. */
  async cleanup(now: Date = new Date()): Promise<CleanupResult | null> {
    const runner = this.ds.createQueryRunner();
    const lockKey = `conduit.monitoring.cleanup:${schemaOf(this.ds)}`;
    try {
      const [lock] = (await runner.query(`SELECT pg_try_advisory_lock(hashtext($1)) AS ok`, [lockKey])) as {
        ok: boolean;
      }[];
      if (!lock?.ok) return null;
      try {
        const logCutoff = new Date(now.getTime() - this.settings.logRetentionDays * 86_400_000);
        let logLines = 0;
        for (;;) {
          const deleted = await this.deleteBatch(runner.query.bind(runner), logCutoff);
          logLines += deleted;
          if (deleted < DELETE_BATCH) break;
        }
        const eventCutoff = new Date(now.getTime() - PROCESSED_EVENTS_KEEP_DAYS * 86_400_000);
        const [events] = (await runner.query(
          `WITH d AS (DELETE FROM processed_events WHERE processed_at < $1 RETURNING 1) SELECT count(*)::int AS n FROM d`,
          [eventCutoff],
        )) as { n: number }[];
        return { logLines, processedEvents: events?.n ?? 0 };
      } finally {
        await runner.query(`SELECT pg_advisory_unlock(hashtext($1))`, [lockKey]).catch(() => undefined);
      }
    } finally {
      await runner.release();
    }
  }

  private async deleteBatch(
    query: (sql: string, params: unknown[]) => Promise<unknown>,
    cutoff: Date,
  ): Promise<number> {
    // Counted in a CTE: TypeORM answers a bare DELETE ... RETURNING as [rows, count], not as rows.
    const [deleted] = (await query(
      `WITH d AS (DELETE FROM run_logs WHERE ctid = ANY (ARRAY(SELECT ctid FROM run_logs WHERE ts < $1 LIMIT ${DELETE_BATCH})) RETURNING 1)
       SELECT count(*)::int AS n FROM d`,
      [cutoff],
    )) as { n: number }[];
    return deleted?.n ?? 0;
  }
}
