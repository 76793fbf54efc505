/** Tunables of the scheduler's background work; main.ts fills them from the config, tests from their needs. */
export interface SchedulerSettings {
  redisUrl: string;
  /** The deployment's REDIS_PREFIX: RPC keys, BullMQ prefix (`${prefix}bull`) and the cancel channel derive from it. */
  redisPrefix: string;
  /** Default 5000. */
  catalogTimeoutMs: number;
  /** How long a held pipeline snapshot is used at most (held-snapshots.ts); 0 holds none. Default 30000. */
  snapshotHoldMs: number;
  /** Period of the outbox sweep. Default 500. */
  outboxSweepMs: number;
  /** Period of the reaper. Default 10000. */
  reaperIntervalMs: number;
  /** How long a queued or running run may go without news before the reaper looks at its queue job. Default 60000. */
  runSilenceMs: number;
  /** How long a run may stay queued (no executor took it) before the reaper fails it. Default 3600000. */
  queuedRunTimeoutMs: number;
  /**
   * How long after a run's lease lapsed, its queue job still active without a lock (its executor died), the reaper
   * leaves it to the executors still running: BullMQ's stalled check moves such a job back to the queue within two of
   * its passes (RUN_STALLED_INTERVAL_MS, 30 s), and another executor takes the run over. Default 75000.
   */
  stalledGraceMs: number;
  /**
   * How long after its Redis connection opened or dropped the relay sends every webhook-kind event to the dispatcher
   * instead of only those of tenants with webhooks (service-kit webhook-tenants.ts). Default 30000.
   */
  webhookTenantsDistrustMs: number;
  /** Test only (SCHEDULER_FAULT_COMMIT_DELAY_MS): how long Trigger Run waits just before its commit. Default 0. */
  faultCommitDelayMs: number;
  /** Which background loops run in this process (tests switch some off to observe a crash window). */
  background: { relay: boolean; reaper: boolean; ticks: boolean; reports: boolean };
}

export function schedulerSettings(
  partial: Pick<SchedulerSettings, 'redisUrl' | 'redisPrefix'> & Partial<SchedulerSettings>,
): SchedulerSettings {
  return {
    catalogTimeoutMs: 5000,
    snapshotHoldMs: 30_000,
    outboxSweepMs: 500,
    reaperIntervalMs: 10_000,
    runSilenceMs: 60_000,
    queuedRunTimeoutMs: 3_600_000,
    stalledGraceMs: 75_000,
    webhookTenantsDistrustMs: 30_000,
    faultCommitDelayMs: 0,
    ...partial,
    background: { relay: true, reaper: true, ticks: true, reports: true, ...partial.background },
  };
}
