import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { baseEnv, envPort, loadConfig } from '@conduit/service-kit';
import { secretsEnv } from '@conduit/secrets';
import {
  DEFAULT_CONNECTOR_POOL_IDLE_MS,
  DEFAULT_CONNECTOR_POOL_MAX,
  DEFAULT_CONNECTOR_POOLS_MAX,
  DEFAULT_SCRATCH_LIMIT_BYTES,
  refineAllowedNetworks,
} from '@conduit/connectors';
import { DEFAULT_RUN_MEMORY_LIMIT, MIN_RUN_MEMORY_BYTES, parseSize } from './data/run-memory.js';

const positiveInt = () => z.coerce.number().int().min(1);

export const executorEnvSchema = z
  .object({
    ...baseEnv,
    /** HTTP port of /healthz, /readyz and /metrics only: runs arrive over the `runs` queue. */
    EXECUTOR_PORT: envPort().default(3103),
    HOST: z.string().min(1).default('127.0.0.1'),
    /** Runs one executor process works on at once. */
    EXECUTOR_CONCURRENCY: positiveInt().max(64).default(2),
    /** Nodes of one run executing at once. */
    EXECUTOR_NODE_PARALLELISM: positiveInt().max(64).default(4),
    /** Parent of each run's DuckDB spill directory (removed when the run ends). */
    EXECUTOR_DATA_DIR: z.string().min(1).default(join(tmpdir(), 'conduit-executor')),
    /**
     * Memory of one run, in bytes (given as `96MiB`, `256MB`...): DuckDB's memory_limit and threads and the bulk
     * transfers' buffers are derived from it (data/run-memory.ts); beyond it DuckDB spills to EXECUTOR_DATA_DIR.
     * An executor's peak is about its idle size plus EXECUTOR_CONCURRENCY times this.
     */
    RUN_MEMORY_LIMIT: z
      .string()
      .default(DEFAULT_RUN_MEMORY_LIMIT)
      .transform((text, ctx) => {
        const bytes = parseSize(text);
        if (bytes === undefined)
          ctx.addIssue({ code: 'custom', message: 'must be a size such as 96MiB, 256MB or 2GiB' });
        else if (bytes < MIN_RUN_MEMORY_BYTES)
          ctx.addIssue({ code: 'custom', message: `must be at least ${MIN_RUN_MEMORY_BYTES / 1024 / 1024}MiB` });
        return bytes ?? 0;
      }),
    /**
     * Disk of one run: the most its typed reads (s3 objects, http pages, copied files) may hold in its scratch folder
     * under EXECUTOR_DATA_DIR at once (`8GiB`, `500MB`...); a read past it fails its node as a config_error. Keep
     * EXECUTOR_CONCURRENCY times this under the spill volume, with room for DuckDB's spill. Default 8GiB.
     */
    RUN_SCRATCH_LIMIT: z
      .string()
      .optional()
      .transform((text, ctx) => {
        if (text === undefined) return DEFAULT_SCRATCH_LIMIT_BYTES;
        const bytes = parseSize(text);
        if (bytes === undefined || bytes < 1)
          ctx.addIssue({ code: 'custom', message: 'must be a size such as 8GiB, 500MB or 20GiB' });
        return bytes ?? 0;
      }),
    /** Replaced by RUN_MEMORY_LIMIT: refused, so a deployment that still sets it learns that it no longer applies. */
    DUCKDB_MEMORY_LIMIT: z
      .undefined({
        error: 'was replaced by RUN_MEMORY_LIMIT (one limit for DuckDB and the buffers of a run); unset it',
      })
      .optional(),
    /** BullMQ lock on a run; an executor that stops renewing it (dead) loses the run to another after this long. */
    RUN_LOCK_MS: positiveInt().min(1000).default(30_000),
    /** How often each executor looks for runs whose lock expired. Default: RUN_LOCK_MS. */
    RUN_STALLED_INTERVAL_MS: positiveInt().min(500).optional(),
    /** How many times a run may be taken over after its executor died before it fails. */
    MAX_STALLED_COUNT: z.coerce.number().int().min(0).max(100).default(2),
    /** On SIGTERM, how long active runs may take to finish before they are handed back to the queue. */
    EXECUTOR_SHUTDOWN_GRACE_MS: z.coerce.number().int().min(0).default(25_000),
    /** How long a catalog RPC (resolving connectors) may take. */
    CATALOG_RPC_TIMEOUT_MS: positiveInt().default(5000),
    /**
     * SECRETS_KEY, AES-256-GCM key: connector secrets arrive sealed from the catalog and are opened only in memory.
     * SECRETS_KEYS_PREVIOUS: keys being rotated out (comma-separated), which still open values sealed under them.
     */
    ...secretsEnv(),
    /** Internal ranges connectors may reach (CIDRs, comma separated); a typo stops the start, not a run. */
    CONNECTOR_ALLOWED_NETWORKS: z.string().optional().superRefine(refineAllowedNetworks),
    /**
     * Connections one database connector (postgres, mysql) keeps open per tenant and config version, shared by the runs and
     * nodes of this executor; a node past it waits for a connection to come back.
     */
    CONNECTOR_POOL_MAX: positiveInt().max(64).default(DEFAULT_CONNECTOR_POOL_MAX),
    /** A pooled connection unused this long is closed, and so is a pool none of whose connections is in use. */
    CONNECTOR_POOL_IDLE_MS: positiveInt().min(100).default(DEFAULT_CONNECTOR_POOL_IDLE_MS),
    /** Pools this executor keeps open at most, every tenant's together: past it the least recently used idle go. */
    CONNECTOR_POOLS_MAX: positiveInt().max(10_000).default(DEFAULT_CONNECTOR_POOLS_MAX),
  })
  .transform((env) => ({ ...env, RUN_STALLED_INTERVAL_MS: env.RUN_STALLED_INTERVAL_MS ?? env.RUN_LOCK_MS }));

export type ExecutorConfig = z.output<typeof executorEnvSchema>;

/** Reads and validates the environment once; throws ConfigError listing every problem. */
export function loadExecutorConfig(env: NodeJS.ProcessEnv = process.env): ExecutorConfig {
  return loadConfig(executorEnvSchema, env);
}
