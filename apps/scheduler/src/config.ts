import { z } from 'zod';
import { baseEnv, envPort, loadConfig } from '@conduit/service-kit';
import { FAULT_POINTS } from './faults/fault-point.js';

const positiveInt = () => z.coerce.number().int().min(1);

export const schedulerEnvSchema = z
  .object({
    ...baseEnv,
    /** HTTP port of /healthz, /readyz and /metrics; requests arrive over Redis, not here. */
    SCHEDULER_PORT: envPort().default(3102),
    HOST: z.string().min(1).default('127.0.0.1'),
    /** The PostgreSQL schema of the scheduler's tables; tests migrate a fresh one. */
    SCHEDULER_DB_SCHEMA: z
      .string()
      .regex(/^[a-z_][a-z0-9_]{0,62}$/, 'must be a lower-case SQL identifier')
      .default('scheduler'),
    SCHEDULER_DB_POOL_SIZE: positiveInt().max(100).default(10),
    /** Most RPC requests one replica handles at once. */
    SCHEDULER_RPC_CONCURRENCY: positiveInt().max(1000).default(64),
    /** How long a call to the catalog waits for its answer. */
    SCHEDULER_CATALOG_TIMEOUT_MS: positiveInt().max(60_000).default(5000),
    /** How long a pipeline snapshot taken from the catalog is used by triggers at most; 0 holds none. */
    SCHEDULER_SNAPSHOT_HOLD_MS: z.coerce.number().int().min(0).max(600_000).default(30_000),
    /**
     * How long after its Redis connection opened or dropped the outbox relay sends every tenant's run events to the
     * webhook dispatcher, before it trusts the dispatcher's set of tenants with webhooks again: keep it above the set's
     * life of 15 s (a failover's older copy lapses or is rewritten by then). 0 only for tests and benches.
     */
    SCHEDULER_WEBHOOK_TENANTS_DISTRUST_MS: z.coerce.number().int().min(0).max(600_000).default(30_000),
    /** Period of the outbox sweep (the relay is also woken right after each commit). */
    SCHEDULER_OUTBOX_SWEEP_MS: positiveInt().max(60_000).default(500),
    /** Period of the reaper that fails lost or abandoned runs. */
    SCHEDULER_REAPER_INTERVAL_MS: positiveInt().max(600_000).default(10_000),
    /** A run whose executor has been silent this long, with no live queue job, is failed. */
    SCHEDULER_RUN_SILENCE_MS: positiveInt().max(86_400_000).default(60_000),
    /**
     * After a run's lease lapsed while executors run, how long they have to take it over (BullMQ's stalled check, two
     * passes of the executors' RUN_STALLED_INTERVAL_MS) before the reaper fails it: keep it above twice that interval.
     */
    SCHEDULER_STALLED_GRACE_MS: positiveInt().max(3_600_000).default(75_000),
    /** A run no executor has taken this long after it was queued is failed (`queue_timeout`): no executor runs. */
    SCHEDULER_QUEUED_RUN_TIMEOUT_MS: positiveInt()
      .max(7 * 86_400_000)
      .default(3_600_000),
    /** Test only (fault suite R4), refused in production: where the scheduler kills itself with SIGKILL. */
    SCHEDULER_FAULT_POINT: z.enum(FAULT_POINTS).optional(),
    /**
     * Test only (the fault suite's R6), refused in production: Trigger Run waits this long inside its transaction,
     * after the deadline check and before the commit, so its commit lands after the gateway has answered 503.
     */
    SCHEDULER_FAULT_COMMIT_DELAY_MS: z.coerce.number().int().min(0).max(60_000).default(0),
  })
  .superRefine((env, ctx) => {
    if (env.NODE_ENV === 'production' && env.SCHEDULER_FAULT_COMMIT_DELAY_MS > 0) {
      ctx.addIssue({
        code: 'custom',
        path: ['SCHEDULER_FAULT_COMMIT_DELAY_MS'],
        message: 'is a test-only fault point, refused in production',
      });
    }
    // A crash point left set by mistake must stop the start, not be silently ignored (as the delay above is refused).
    if (env.NODE_ENV === 'production' && env.SCHEDULER_FAULT_POINT !== undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['SCHEDULER_FAULT_POINT'],
        message: 'is a test-only fault point, refused in production',
      });
    }
  });

export type SchedulerConfig = z.output<typeof schedulerEnvSchema>;

/** Reads and validates the environment once; throws ConfigError listing every problem. */
export function loadSchedulerConfig(env: NodeJS.ProcessEnv = process.env): SchedulerConfig {
  return loadConfig(schedulerEnvSchema, env);
}
