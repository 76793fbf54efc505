/**
 * How much a bulk transfer between a database and the run's DuckDB may hold in memory at once. The executor derives
 * these from the run's one memory limit (RUN_MEMORY_LIMIT, apps/executor/src/data/run-memory.ts) and hands them to
 * the typed readers and writers with the table; a driver called without them uses the defaults below.
 */
export interface TransferBuffers {
  /**
   * The longest row a CSV file may have for DuckDB's reader (`max_line_size`); a longer row fails the load with a
   * message that names this limit.
   */
  csvMaxLineBytes: number;
  /**
   * DuckDB's CSV read buffer (`buffer_size`), per reading thread and taken from the run's DuckDB memory. DuckDB
   * requires it to be larger than `csvMaxLineBytes`.
   */
  csvBufferBytes: number;
  /** highWaterMark of the file streams between a database connection and the scratch folder. */
  streamChunkBytes: number;
  /**
   * The most the typed reads of one run (s3 downloads, http pages, copied files) may hold in its scratch folder at
   * once (RUN_SCRATCH_LIMIT); a read that would pass it fails as a config_error (formats/scratch-limit.ts).
   * Default DEFAULT_SCRATCH_LIMIT_BYTES.
   */
  scratchLimitBytes?: number;
}

const MiB = 1024 * 1024;

/**
 * RUN_SCRATCH_LIMIT's default, 8 GiB: two runs (EXECUTOR_CONCURRENCY's default) at their limit hold 16 GiB of the
 * executor's 20 GiB spill volume (k8s/base/executor.yaml), leaving the rest to DuckDB's own spill.
 */
export const DEFAULT_SCRATCH_LIMIT_BYTES = 8 * 1024 * MiB;

/** What the executor derives from its default limit: for drivers called outside a run (tools, tests). */
export const DEFAULT_TRANSFER_BUFFERS: Readonly<TransferBuffers> = {
  csvMaxLineBytes: 6 * MiB,
  csvBufferBytes: 12 * MiB,
  streamChunkBytes: 256 * 1024,
  scratchLimitBytes: DEFAULT_SCRATCH_LIMIT_BYTES,
};
