import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { baseEnv, envPort, loadConfig } from '@conduit/service-kit';
import { secretsEnv } from '@conduit/secrets';
import {
  DEFAULT_CONNECTOR_POOL_IDLE_MS,
  DEFAULT_CONNECTOR_POOL_MAX,
  DEFAULT_CONNECTOR_POOLS_MAX,
  refineAllowedNetworks,
} from '@conduit/connectors';
import { DEFAULT_RUN_MEMORY_LIMIT, MIN_RUN_MEMORY_BYTES, parseSize } from './data/run-memory.js';
import { DEFAULT_INTERRUPT_GRACE_MS } from './data/interrupts.js';

const MiB = 1024 * 1024;
/**
 * What an executor holds besides its runs' RUN_MEMORY_LIMIT: idle it is about 167 MiB (docs/reliability.md,
 * "Memory"); the rest is room for its spare DuckDB workspace and the V8 heap's share of its runs' bookkeeping.
 */
export const EXECUTOR_OWN_MEMORY_BYTES = 256 * MiB;
/** Below this a run's scratch share could not hold a modest file: a data dir that small for its runs is refused. */
const MIN_DERIVED_SCRATCH_BYTES = 64 * MiB;

const positiveInt = () => z.coerce.number().int().min(1);

/** A size (`2GiB`, `500MB`) or a plain count of bytes (what the Kubernetes downward API gives), at least 1 byte. */
const size = (example: string) =>
  z.string().transform((text, ctx) => {
    const bytes = /^\s*\d+\s*$/.test(text) ? Number(text) : parseSize(text);
    if (bytes === undefined || bytes < 1)
      ctx.addIssue({ code: 'custom', message: `must be a size such as ${example}, or a number of bytes` });
    return bytes ?? 0;
  });

export const executorEnvSchema = z
  .object({
    ...baseEnv,
    /** HTTP port of /healthz, /readyz and /metrics only: runs arrive over the `runs` queue. */
    EXECUTOR_PORT: envPort().default(3103),
    HOST: z.string().min(1).default('127.0.0.1'),
    /**
     * Runs one executor process works on at once. 8: a run mostly waits on the systems it reads and writes, so slots
     * rather than CPU bound an executor; each slot gets RUN_MEMORY_LIMIT and a share of EXECUTOR_DATA_DIR_SIZE.
     */
    EXECUTOR_CONCURRENCY: positiveInt().max(64).default(8),
    /** Nodes of one run executing at once. */
    EXECUTOR_NODE_PARALLELISM: positiveInt().max(64).default(4),
    /** Parent of each run's DuckDB spill directory (removed when the run ends). */
    EXECUTOR_DATA_DIR: z.string().min(1).default(join(tmpdir(), 'conduit-executor')),
    /**
     * The space this executor's runs may fill under EXECUTOR_DATA_DIR (k8s: the spill volume's sizeLimit): each of the
     * EXECUTOR_CONCURRENCY runs gets an equal share, half of it for its scratch files (RUN_SCRATCH_LIMIT) and half for
     * DuckDB's spill. Default 32GiB.
     */
    EXECUTOR_DATA_DIR_SIZE: size('32GiB').default(32 * 1024 ** 3),
    /**
     * The memory this executor's container may use (k8s: its limits.memory, by the downward API). When given, a start
     * whose runs (EXECUTOR_CONCURRENCY x RUN_MEMORY_LIMIT) and idle size cannot fit in it is refused, and it is the
     * executor's own data-size limit (ops/data-limit.ts).
     */
    EXECUTOR_MEMORY_LIMIT: size('2GiB').optional(),
    /**
     * Memory of one run, in bytes (given as `96MiB`, `256MB`...): DuckDB's memory_limit and threads and the bulk
     * transfers' buffers are derived from it (data/run-memory.ts); beyond it DuckDB spills to EXECUTOR_DATA_DIR.
     * An executor's peak is about its idle size plus EXECUTOR_CONCURRENCY times this, which must fit in
     * EXECUTOR_MEMORY_LIMIT when that is given.
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
     * under EXECUTOR_DATA_DIR at once (`2GiB`, `500MB`...); a read past it fails its node as a config_error. Default:
     * half of the run's share of EXECUTOR_DATA_DIR_SIZE (2GiB at the defaults); EXECUTOR_CONCURRENCY times it may take
     * at most half of EXECUTOR_DATA_DIR_SIZE.
     */
    RUN_SCRATCH_LIMIT: size('2GiB').optional(),
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
    /**
     * How long a node's DuckDB work may run on after its timeout or cancel interrupted it (DuckDB does not interrupt
     * inside one function call). Past it the node fails, and the executor drains and restarts: only ending the
     * process frees the core such a statement holds.
     */
    EXECUTOR_INTERRUPT_GRACE_MS: positiveInt().min(100).default(DEFAULT_INTERRUPT_GRACE_MS),
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
  .transform((env, ctx) => {
    for (const problem of memoryProblems(env)) ctx.addIssue({ code: 'custom', ...problem });
    const scratch = runScratchLimit(env);
    if ('problem' in scratch) ctx.addIssue({ code: 'custom', ...scratch.problem });
    const scratchBytes = 'bytes' in scratch ? scratch.bytes : 0;
    return {
      ...env,
      RUN_SCRATCH_LIMIT: scratchBytes,
      /** Derived, not read: the rest of a run's share of the data dir, DuckDB's max_temp_directory_size for it. */
      RUN_SPILL_LIMIT: Math.floor(env.EXECUTOR_DATA_DIR_SIZE / env.EXECUTOR_CONCURRENCY) - scratchBytes,
      RUN_STALLED_INTERVAL_MS: env.RUN_STALLED_INTERVAL_MS ?? env.RUN_LOCK_MS,
    };
  });

interface Problem {
  path: string[];
  message: string;
}

/** The container must hold every slot's run at its memory limit plus the executor itself. */
function memoryProblems(env: {
  EXECUTOR_CONCURRENCY: number;
  RUN_MEMORY_LIMIT: number;
  EXECUTOR_MEMORY_LIMIT?: number | undefined;
}): Problem[] {
  const limit = env.EXECUTOR_MEMORY_LIMIT;
  const needed = EXECUTOR_OWN_MEMORY_BYTES + env.EXECUTOR_CONCURRENCY * env.RUN_MEMORY_LIMIT;
  if (limit === undefined || needed <= limit) return [];
  return [
    {
      path: ['EXECUTOR_CONCURRENCY'],
      message:
        `${env.EXECUTOR_CONCURRENCY} runs of RUN_MEMORY_LIMIT ${sizeText(env.RUN_MEMORY_LIMIT)} and the executor's own ` +
        `${sizeText(EXECUTOR_OWN_MEMORY_BYTES)} need ${sizeText(needed)}, more than EXECUTOR_MEMORY_LIMIT ` +
        `(${sizeText(limit)}): lower EXECUTOR_CONCURRENCY or RUN_MEMORY_LIMIT, or raise the container's memory limit`,
    },
  ];
}

/**
 * A run's scratch limit: RUN_SCRATCH_LIMIT, or half of the run's share of EXECUTOR_DATA_DIR_SIZE. Either way the
 * runs' reads together take at most half the data dir, keeping the other half for DuckDB's spill (each run's capped at
 * the rest of its share, RUN_SPILL_LIMIT): in k8s an emptyDir past its sizeLimit gets the pod, and every tenant's run
 * on it, evicted.
 */
function runScratchLimit(env: {
  EXECUTOR_CONCURRENCY: number;
  EXECUTOR_DATA_DIR_SIZE: number;
  RUN_SCRATCH_LIMIT?: number | undefined;
}): { bytes: number } | { problem: Problem } {
  const half = env.EXECUTOR_DATA_DIR_SIZE / 2;
  const runs = env.EXECUTOR_CONCURRENCY;
  if (env.RUN_SCRATCH_LIMIT === undefined) {
    const bytes = Math.floor(half / runs / MiB) * MiB;
    if (bytes >= MIN_DERIVED_SCRATCH_BYTES) return { bytes };
    return {
      problem: {
        path: ['EXECUTOR_DATA_DIR_SIZE'],
        message:
          `${sizeText(env.EXECUTOR_DATA_DIR_SIZE)} leaves each of ${runs} runs (EXECUTOR_CONCURRENCY) less than ` +
          `${sizeText(MIN_DERIVED_SCRATCH_BYTES)} of scratch space (half of its share): raise it with the volume, or ` +
          'lower EXECUTOR_CONCURRENCY',
      },
    };
  }
  if (runs * env.RUN_SCRATCH_LIMIT <= half) return { bytes: env.RUN_SCRATCH_LIMIT };
  return {
    problem: {
      path: ['RUN_SCRATCH_LIMIT'],
      message:
        `${runs} runs (EXECUTOR_CONCURRENCY) of ${sizeText(env.RUN_SCRATCH_LIMIT)} hold ` +
        `${sizeText(runs * env.RUN_SCRATCH_LIMIT)}, more than half of EXECUTOR_DATA_DIR_SIZE ` +
        `(${sizeText(env.EXECUTOR_DATA_DIR_SIZE)}; the other half is DuckDB's spill): lower it or EXECUTOR_CONCURRENCY, ` +
        'or raise EXECUTOR_DATA_DIR_SIZE with the volume',
    },
  };
}

/** A size in the largest binary unit that divides it, as the settings take it (`8GiB`, `88MiB`). */
function sizeText(bytes: number): string {
  for (const [unit, factor] of [
    ['GiB', 1024 ** 3],
    ['MiB', MiB],
    ['KiB', 1024],
  ] as const) {
    if (bytes >= factor && bytes % factor === 0) return `${bytes / factor}${unit}`;
  }
  if (bytes >= 1024 ** 3) return `${(bytes / 1024 ** 3).toFixed(1)}GiB`;
  return `${bytes} bytes`;
}

export type ExecutorConfig = z.output<typeof executorEnvSchema>;

/** Reads and validates the environment once; throws ConfigError listing every problem. */
export function loadExecutorConfig(env: NodeJS.ProcessEnv = process.env): ExecutorConfig {
  return loadConfig(executorEnvSchema, env);
}
