import { z } from 'zod';
import { baseEnv, envPort, loadConfig } from '@conduit/service-kit';

const positiveInt = () => z.coerce.number().int().min(1);

export const monitoringEnvSchema = z.object({
  ...baseEnv,
  /** HTTP port of /healthz, /readyz and /metrics; requests arrive over Redis, not here. */
  MONITORING_PORT: envPort().default(3104),
  HOST: z.string().min(1).default('127.0.0.1'),
  /** The PostgreSQL schema of the monitoring tables; tests migrate a fresh one. */
  MONITORING_DB_SCHEMA: z
    .string()
    .regex(/^[a-z_][a-z0-9_]{0,62}$/, 'must be a lower-case SQL identifier')
    .default('monitoring'),
  MONITORING_DB_POOL_SIZE: positiveInt().max(100).default(10),
  /** Most RPC requests one replica handles at once. */
  MONITORING_RPC_CONCURRENCY: positiveInt().max(1000).default(64),
  /** Run log lines older than this are removed by the cleanup. */
  LOG_RETENTION_DAYS: positiveInt().max(3650).default(30),
  /** Period of the retention cleanup. */
  MONITORING_CLEANUP_INTERVAL_MS: positiveInt().max(86_400_000).default(3_600_000),
  /** Period of the outbox sweep (the relay is also woken right after each commit). */
  MONITORING_OUTBOX_SWEEP_MS: positiveInt().max(60_000).default(500),
});

export type MonitoringConfig = z.output<typeof monitoringEnvSchema>;

/** Reads and validates the environment once; throws ConfigError listing every problem. */
export function loadMonitoringConfig(env: NodeJS.ProcessEnv = process.env): MonitoringConfig {
  return loadConfig(monitoringEnvSchema, env);
}
