/**
 * One memory limit per run (RUN_MEMORY_LIMIT) and everything derived from it: DuckDB's memory_limit and threads, and
 * what the bulk transfers may buffer. Rows never become JS values on the typed path (files of the scratch folder go
 * between the databases and DuckDB, streamed with backpressure), so the run's memory is DuckDB's buffer pool plus what
 * DuckDB allocates outside it (per-thread vectors, the CSV writer's buffers, the allocator's slack) plus a few stream
 * chunks. Measured on the 1M- and 10M-row copies (docs/reliability.md, "Memory"): what DuckDB and the streams hold
 * beyond the pool is about 32 MiB plus 16 MiB a DuckDB thread, whatever the tables' size; the pool gets the rest.
 */
import { availableParallelism } from 'node:os';
import { DEFAULT_SCRATCH_LIMIT_BYTES, type TransferBuffers } from '@conduit/connectors';

const KiB = 1024;
const MiB = 1024 * KiB;

/** RUN_MEMORY_LIMIT's default: with EXECUTOR_CONCURRENCY=1 an executor stays under 256 MiB (docs/reliability.md). */
export const DEFAULT_RUN_MEMORY_LIMIT = '88MiB';
/** Held outside DuckDB's pool: DuckDB's own allocations beyond it, the allocators' slack, the streams' chunks. */
const RESERVE_BYTES = 32 * MiB;
const RESERVE_PER_THREAD_BYTES = 16 * MiB;
/**
 * DuckDB's JSON reader takes a 32 MiB buffer from the pool per thread, whatever the file (its CSV reader takes the
 * buffer it is given): a pool under this plus room for the table being filled cannot read JSON at all.
 */
const POOL_PER_THREAD_BYTES = 40 * MiB;
/** The smallest limit a run may have: one thread's pool plus what is held outside it. */
export const MIN_RUN_MEMORY_BYTES = POOL_PER_THREAD_BYTES + RESERVE_BYTES + RESERVE_PER_THREAD_BYTES;
/** A run's spill limit without an executor's config (tests, in-process runs): as much as its default scratch. */
export const DEFAULT_SPILL_LIMIT_BYTES = DEFAULT_SCRATCH_LIMIT_BYTES;

export interface RunMemory {
  /** The run's whole limit, in bytes. */
  limitBytes: number;
  /** DuckDB's instance settings: memory_limit (its buffer pool; beyond it DuckDB spills), threads, allocator flushes. */
  duckdb: DuckdbMemorySettings;
  /** What the typed readers and writers may buffer. */
  buffers: TransferBuffers;
  /**
   * The most DuckDB may spill to disk for the run (its max_temp_directory_size): past it a statement fails with
   * DuckDB's out-of-memory error instead of filling the executor's data dir, shared with the other slots' runs.
   */
  spillLimitBytes: number;
}

export interface DuckdbMemorySettings {
  memory_limit: string;
  threads: string;
  /**
   * DuckDB's allocator (jemalloc) keeps freed memory for reuse; after a task whose peak passed this, it hands it
   * back to the system. DuckDB's default (128 MiB) is more than a whole run may hold.
   */
  allocator_flush_threshold: string;
  /** Likewise after freeing this much at once (DuckDB's default: 512 MiB). */
  allocator_bulk_deallocation_flush_threshold: string;
}

const clamp = (value: number, min: number, max: number): number => Math.min(max, Math.max(min, value));

/**
 * Derives a run's settings from its limit; `cores` caps the threads (default: the cores Node may use). The run's
 * scratch limit (RUN_SCRATCH_LIMIT) and spill limit (config.ts, RUN_SPILL_LIMIT) are disk, not memory, but travel
 * with it: the first to the drivers with the buffers, the second to DuckDB.
 */
export function runMemory(
  limitBytes: number,
  cores: number = availableParallelism(),
  scratchLimitBytes: number = DEFAULT_SCRATCH_LIMIT_BYTES,
  spillLimitBytes: number = DEFAULT_SPILL_LIMIT_BYTES,
): RunMemory {
  if (!Number.isFinite(spillLimitBytes) || spillLimitBytes < MiB) {
    throw new RangeError("a run's spill limit must be at least 1 MiB");
  }
  if (!Number.isFinite(limitBytes) || limitBytes < MIN_RUN_MEMORY_BYTES) {
    throw new RangeError(`a run's memory limit must be at least ${MIN_RUN_MEMORY_BYTES / MiB} MiB`);
  }
  const threads = clamp(Math.floor(limitBytes / (POOL_PER_THREAD_BYTES + RESERVE_BYTES)), 1, Math.max(1, cores));
  const poolMiB = Math.floor((limitBytes - RESERVE_BYTES - threads * RESERVE_PER_THREAD_BYTES) / MiB);
  // Each reading thread holds two CSV buffers (the one it parses and the next), each twice a line (DuckDB wants the
  // buffer larger than the longest row): together at most half of the pool, leaving the rest to the table they fill.
  // A longer row fails the load with a message naming the limit.
  const csvMaxLineBytes = clamp(Math.floor(poolMiB / (8 * threads)), 1, 16) * MiB;
  return {
    limitBytes,
    duckdb: {
      memory_limit: `${poolMiB}MiB`,
      threads: String(threads),
      allocator_flush_threshold: `${Math.max(1, Math.floor(poolMiB / 8))}MiB`,
      allocator_bulk_deallocation_flush_threshold: `${Math.max(1, Math.floor(poolMiB / 4))}MiB`,
    },
    buffers: {
      csvMaxLineBytes,
      csvBufferBytes: 2 * csvMaxLineBytes,
      streamChunkBytes: clamp(Math.floor(limitBytes / 256 / (64 * KiB)), 1, 16) * 64 * KiB,
      scratchLimitBytes,
      // A JSON page becomes JS values many times its size (lossless-json's exact numbers more): a sixteenth.
      jsonPageMaxBytes: clamp(Math.floor(limitBytes / 16), MiB, 64 * MiB),
    },
    spillLimitBytes,
  };
}

const UNITS: Readonly<Record<string, number>> = {
  b: 1,
  kb: 1000,
  mb: 1000 ** 2,
  gb: 1000 ** 3,
  tb: 1000 ** 4,
  kib: KiB,
  mib: MiB,
  gib: 1024 ** 3,
  tib: 1024 ** 4,
};

/** A size as DuckDB spells them (`96MiB`, `256MB`, `2GiB`: MB is 1000², MiB 1024²), in bytes; undefined if malformed. */
export function parseSize(text: string): number | undefined {
  const match = /^\s*(\d+(?:\.\d+)?)\s*([a-z]+)\s*$/i.exec(text);
  const unit = match ? UNITS[match[2]!.toLowerCase()] : undefined;
  return match && unit !== undefined ? Math.floor(Number(match[1]) * unit) : undefined;
}
