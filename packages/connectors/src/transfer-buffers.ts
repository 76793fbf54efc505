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
   * once (the executor's RUN_SCRATCH_LIMIT); a read that would pass it fails as a config_error
   * (formats/scratch-limit.ts). Default DEFAULT_SCRATCH_LIMIT_BYTES.
   */
  scratchLimitBytes?: number;
}

const MiB = 1024 * 1024;

/**
 * The scratch limit of a driver called without one (tools, tests). An executor always passes its runs' own
 * (RUN_SCRATCH_LIMIT, by default half of a run's share of EXECUTOR_DATA_DIR_SIZE: apps/executor/src/config.ts).
 */
export const DEFAULT_SCRATCH_LIMIT_BYTES = 8 * 1024 * MiB;

/** What the executor derives from its default limit: for drivers called outside a run (tools, tests). */
export const DEFAULT_TRANSFER_BUFFERS: Readonly<TransferBuffers> = {
  csvMaxLineBytes: 6 * MiB,
  csvBufferBytes: 12 * MiB,
  streamChunkBytes: 256 * 1024,
  scratchLimitBytes: DEFAULT_SCRATCH_LIMIT_BYTES,
};
