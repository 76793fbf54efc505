/** Tunables of the monitoring service's background work; main.ts fills them from the config, tests from their needs. */
export interface MonitoringSettings {
  redisUrl: string;
  /** The deployment's REDIS_PREFIX: RPC keys and the BullMQ prefix (`${prefix}bull`) derive from it. */
  redisPrefix: string;
  /** Run log lines older than this many days are removed. Default 30. */
  logRetentionDays: number;
  /** Period of the retention cleanup. Default 3600000 (hourly). */
  cleanupIntervalMs: number;
  /** Period of the outbox sweep. Default 500. */
  outboxSweepMs: number;
  /** Which background loops run in this process (tests switch some off to observe one piece alone). */
  background: { events: boolean; logs: boolean; relay: boolean; cleanup: boolean };
}

export function monitoringSettings(
  partial: Pick<MonitoringSettings, 'redisUrl' | 'redisPrefix'> &
    Partial<Omit<MonitoringSettings, 'background'>> & { background?: Partial<MonitoringSettings['background']> },
): MonitoringSettings {
  return {
    logRetentionDays: 30,
    cleanupIntervalMs: 3_600_000,
    outboxSweepMs: 500,
    ...partial,
    background: { events: true, logs: true, relay: true, cleanup: true, ...partial.background },
  };
}
