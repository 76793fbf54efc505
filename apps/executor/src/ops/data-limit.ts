/**
 * The executor's own data-size limit (RLIMIT_DATA). DuckDB's memory_limit bounds its buffer pool, not every value a
 * statement makes: `repeat`, `string_split` or nested `list_transform` over one row can ask for gigabytes
 * (docs/security.md). Under this limit such an allocation fails inside DuckDB, as that statement's "Out of Memory
 * Error", instead of the kernel killing the executor and every run on it.
 *
 * Imports nothing that loads DuckDB: main.ts calls `returnFreedAddressSpace` before the binding loads.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import type { Logger } from 'pino';
// The subpath imports nothing: this module runs before DuckDB's binding loads.
import { DUCKDB_ALLOCATOR_OPTIONS, withFreedAddressSpace } from '@conduit/connectors/allocator-options';

const MiB = 1024 * 1024;
/**
 * What an executor holds besides its runs (config.ts's EXECUTOR_OWN_MEMORY_BYTES, the start check's figure): Node and
 * libduckdb, V8's heap, malloc's arenas. Its threads' stacks come on top (below).
 */
const OWN_DATA_BYTES = 256 * MiB;
/**
 * Each thread's stack is mapped whole (8 MiB) and barely touched: counted by RLIMIT_DATA, not by the container's
 * memory. An executor has libuv's UV_THREADPOOL_SIZE threads and about eight more (V8's, Node's, the inspector's).
 */
const THREAD_STACK_BYTES = 8 * MiB;
const OTHER_THREADS = 8;
/**
 * A run's share: three times its memory limit (the pool, and what DuckDB allocates beside it while it loads and
 * writes, as the duckdb connector's file workers are sized) and each of its DuckDB threads' stack and arena.
 */
const RUN_MEMORY_FACTOR = 3;
const PER_THREAD_DATA_BYTES = 64 * MiB;

/**
 * Sets DuckDB's allocator options (`@conduit/connectors/allocator-options`) in `env`: it then hands back address space
 * as memory is freed, which the limit counts. Must run before any module loads DuckDB's binding.
 */
export function returnFreedAddressSpace(env: NodeJS.ProcessEnv): void {
  env[DUCKDB_ALLOCATOR_OPTIONS] = withFreedAddressSpace(env[DUCKDB_ALLOCATOR_OPTIONS]);
}

export interface DataLimitInputs {
  /** The container's memory (EXECUTOR_MEMORY_LIMIT), when known. */
  containerBytes: number | undefined;
  concurrency: number;
  runMemoryBytes: number;
  runThreads: number;
  /** libuv's threads (UV_THREADPOOL_SIZE; Node's default is 4). */
  threadPoolSize: number;
}

/**
 * The limit: the container's memory when it is known, else room for the executor itself and every slot's run with a
 * wide margin; either way plus the threads' stacks, which are mapped but not resident, so that the limit meets the
 * container's where the kernel would act. A statement's values past it fail the statement.
 */
export function dataLimitBytes(inputs: DataLimitInputs): number {
  const stacks = (inputs.threadPoolSize + OTHER_THREADS) * THREAD_STACK_BYTES;
  if (inputs.containerBytes !== undefined) return inputs.containerBytes + stacks;
  const perRun = RUN_MEMORY_FACTOR * inputs.runMemoryBytes + inputs.runThreads * PER_THREAD_DATA_BYTES;
  return OWN_DATA_BYTES + stacks + inputs.concurrency * perRun;
}

/** The soft RLIMIT_DATA of process `pid` in bytes from /proc, or undefined when unlimited or unreadable. */
export function dataLimitOf(pid: number | 'self' = 'self'): number | undefined {
  try {
    const line = readFileSync(`/proc/${pid}/limits`, 'utf8')
      .split('\n')
      .find((l) => l.startsWith('Max data size'));
    const soft = line?.slice('Max data size'.length).trim().split(/\s+/)[0];
    return soft === undefined || soft === 'unlimited' ? undefined : Number(soft);
  } catch {
    return undefined;
  }
}

/**
 * Sets this process's soft RLIMIT_DATA with util-linux's `prlimit`, as Node has no setrlimit. The soft one only: the
 * children the executor starts (the SQL check, the duckdb connector's file workers) set limits of their own, which a
 * lower hard limit would refuse, and no tenant's SQL can raise a limit. Where it cannot be set (no `prlimit`, no
 * /proc) the executor runs on without it, and says so: a warning, not a refusal to start, as a missing shell is for
 * the SQL check's child.
 */
export function limitDataSize(bytes: number, logger: Logger): void {
  const limit = Math.floor(bytes);
  const current = dataLimitOf();
  if (current !== undefined && current <= limit) {
    logger.info({ data_limit_bytes: current }, 'data-size limit already set (lower or equal): kept');
    return;
  }
  try {
    execFileSync('prlimit', ['--pid', String(process.pid), `--data=${limit}:`], {
      stdio: ['ignore', 'ignore', 'pipe'],
      timeout: 5_000,
    });
  } catch (err) {
    const reason = err instanceof Error ? err.message.split('\n')[0] : String(err);
    logger.warn(
      { reason },
      "could not set the executor's data-size limit (util-linux prlimit): one tenant's statement can take the executor's memory (docs/security.md)",
    );
    return;
  }
  const applied = dataLimitOf();
  if (applied !== limit) {
    logger.warn({ data_limit_bytes: applied ?? null }, "the executor's data-size limit did not take");
    return;
  }
  logger.info({ data_limit_bytes: limit }, 'data-size limit set');
}
