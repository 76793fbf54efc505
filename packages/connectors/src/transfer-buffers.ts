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
   * The largest JSON answer (an http page) parsed into JS values at once: parsing takes the executor's main thread
   * and many times the answer's size in memory (a 60 MB page held 1.1 GB and 6 s of it). Default
   * DEFAULT_JSON_PAGE_MAX_BYTES.
   */
  jsonPageMaxBytes?: number;
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

/** The largest JSON page of a driver called without buffers: what the executor derives from its default limit. */
export const DEFAULT_JSON_PAGE_MAX_BYTES = Math.floor((88 * MiB) / 16);

/** What the executor derives from its default limit: for drivers called outside a run (tools, tests). */
export const DEFAULT_TRANSFER_BUFFERS: Readonly<TransferBuffers> = {
  csvMaxLineBytes: 6 * MiB,
  csvBufferBytes: 12 * MiB,
  streamChunkBytes: 256 * 1024,
  scratchLimitBytes: DEFAULT_SCRATCH_LIMIT_BYTES,
  jsonPageMaxBytes: DEFAULT_JSON_PAGE_MAX_BYTES,
};

/** DuckDB's CSV reader sizes for one read (`max_line_size`, `buffer_size`). */
export interface CsvReaderSizes {
  maxLineBytes: number;
  bufferBytes: number;
}

/** The least line size csvReaderSizes gives: a file of a few rows still gets a buffer of 128 KiB. */
const SMALL_FILE_LINE_BYTES = 64 * 1024;

/**
 * The reader sizes for files of at most `largestFileBytes` (unknown: the configured ones). No line is longer than its
 * file, so a small file gets a buffer of twice its size instead of the run's whole `csvBufferBytes`, which DuckDB
 * takes from fresh memory on every read (the run's allocator hands freed memory back to the system): for a file of
 * one row, ~6 ms of page faults for the default 10 MiB on this project's machine (issue 18). A file as large as the
 * line limit reads with the configured sizes, so a row too long fails with the configured limit in its message.
 */
export function csvReaderSizes(buffers: TransferBuffers, largestFileBytes?: number): CsvReaderSizes {
  if (largestFileBytes === undefined)
    return { maxLineBytes: buffers.csvMaxLineBytes, bufferBytes: buffers.csvBufferBytes };
  const maxLineBytes = Math.min(buffers.csvMaxLineBytes, Math.max(largestFileBytes + 1, SMALL_FILE_LINE_BYTES));
  return { maxLineBytes, bufferBytes: Math.min(buffers.csvBufferBytes, 2 * maxLineBytes) };
}
