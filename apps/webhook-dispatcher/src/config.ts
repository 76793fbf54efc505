import { z } from 'zod';
import { baseEnv, envPort, loadConfig } from '@conduit/service-kit';
import { parseDuration, parseDurationList } from './common/duration.js';
import { secretsEnv } from '@conduit/secrets';

const positiveInt = () => z.coerce.number().int().min(1);
const flag = () =>
  z
    .enum(['true', 'false', '1', '0'], { error: 'must be true or false' })
    .default('false')
    .transform((v) => v === 'true' || v === '1');

export const dispatcherEnvSchema = z.object({
  ...baseEnv,
  /** HTTP port of /healthz, /readyz and /metrics; requests arrive over Redis, not here. */
  WEBHOOK_DISPATCHER_PORT: envPort().default(3105),
  HOST: z.string().min(1).default('127.0.0.1'),
  /**
   * SECRETS_KEY: AES-256-GCM key of webhook secrets (64 hex characters or base64 of 32 bytes).
   * SECRETS_KEYS_PREVIOUS: keys being rotated out (comma-separated), still opening values sealed under them.
   */
  ...secretsEnv(),
  /** The PostgreSQL schema of the dispatcher's tables; tests migrate a fresh one. */
  WEBHOOK_DB_SCHEMA: z
    .string()
    .regex(/^[a-z_][a-z0-9_]{0,62}$/, 'must be a lower-case SQL identifier')
    .default('webhooks'),
  WEBHOOK_DB_POOL_SIZE: positiveInt().max(100).default(10),
  /** Most RPC requests one replica handles at once. */
  WEBHOOK_RPC_CONCURRENCY: positiveInt().max(1000).default(64),
  /** Plain http:// URLs (only for local development and tests). */
  WEBHOOK_ALLOW_HTTP: flag(),
  /** Hosts that resolve to loopback, private, link-local or metadata addresses (only for local development and tests). */
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: flag(),
  /** Delays before each retry; its length is the number of retries. */
  WEBHOOK_RETRY_SCHEDULE: z
    .string()
    .default('5s,5m,30m,2h,5h,10h,10h')
    .transform((value, ctx) => {
      const list = parseDurationList(value);
      if (!list) {
        ctx.addIssue({ code: 'custom', message: 'must be a comma-separated list of durations such as 5s,5m,2h' });
        return z.NEVER;
      }
      return list;
    }),
  /** An attempt that has no answer within this is a failure. */
  WEBHOOK_TIMEOUT_MS: positiveInt().max(120_000).default(10_000),
  /** A webhook failing without a success for this long is disabled. */
  WEBHOOK_DISABLE_AFTER: z
    .string()
    .default('5d')
    .transform((value, ctx) => {
      const ms = parseDuration(value);
      if (ms === undefined || ms === 0) {
        ctx.addIssue({ code: 'custom', message: 'must be a duration such as 5d or 30m' });
        return z.NEVER;
      }
      return ms;
    }),
  /** Attempts one replica sends at once. */
  WEBHOOK_DELIVERY_CONCURRENCY: positiveInt().max(1000).default(100),
  /** Period of the sweep that re-enqueues deliveries lost between a commit and their queue job. */
  WEBHOOK_SWEEP_MS: positiveInt().max(600_000).default(5000),
});

export type DispatcherConfig = z.output<typeof dispatcherEnvSchema>;

/** Reads and validates the environment once; throws ConfigError listing every problem. */
export function loadDispatcherConfig(env: NodeJS.ProcessEnv = process.env): DispatcherConfig {
  return loadConfig(dispatcherEnvSchema, env);
}
