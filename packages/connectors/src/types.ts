/** The shapes every connector driver shares: type metadata, Test Connection results, and the data-plane calls. */
import type { DuckDBConnection } from '@duckdb/node-api';
import type { PoolScope } from './pools/connector-pools.js';
import type { TransferBuffers } from './transfer-buffers.js';

export type ConnectorCategory =
  'database' | 'warehouse' | 'object_store' | 'file' | 'rest_api' | 'message_queue' | 'stream' | 'llm';

/** What a DAG node may use a connector for: `source` reads, `sink` writes, `sql` executes, `llm` decides. */
export type ConnectorRole = 'source' | 'sink' | 'sql' | 'llm';

export type JsonSchema = Record<string, unknown>;

export interface ConnectorTypeInfo {
  type: string;
  category: ConnectorCategory;
  description: string;
  roles: readonly ConnectorRole[];
  /** JSON Schema draft 2020-12; secret properties carry `"writeOnly": true` and `"x-secret": true`. */
  config_schema: JsonSchema;
  /** Top-level property names that are secrets, e.g. `['password']` (declared in @conduit/contracts). */
  secret_fields: readonly string[];
  /**
   * Top-level property names that say where the connector connects (host, port, base_url, bucket...). An update
   * that changes one must send every stored secret again: a kept "********" would follow it to the new place.
   */
  location_fields: readonly string[];
}

/** The bounds of a DuckDB instance a driver opens (the duckdb connector's file); see duckdb/limits.ts. */
export interface DuckdbLimits {
  /**
   * DuckDB's memory_limit (its buffer pool), in bytes: past it a statement spills, or fails with DuckDB's
   * out-of-memory error. Default DEFAULT_DUCKDB_LIMITS' 128 MiB (duckdb/limits.ts); at least 8 MiB.
   */
  memoryLimitBytes?: number;
  /** DuckDB's threads; default 1. */
  threads?: number;
  /**
   * An existing folder of the platform's, outside the data root (e.g. the run's own folder), in which the instance
   * spills: into a folder of its own inside, removed when the file is closed. Default none: DuckDB does not spill.
   */
  spillDirectory?: string;
  /** The most the instance may spill (max_temp_directory_size), in bytes; default 1 GiB. Only with spillDirectory. */
  spillLimitBytes?: number;
}

/** `config_error`: the settings are wrong, fix them. `transient_error`: try again later. */
export type ErrorClass = 'config_error' | 'transient_error';

export interface TestCheck {
  name: string;
  ok: boolean;
  latency_ms: number;
  message: string;
}

export interface TestResult {
  ok: boolean;
  latency_ms: number;
  message: string;
  error_class: ErrorClass | null;
  /** The checks that ran, in order; a failed check is the last one (later checks are not run and not listed). */
  checks: TestCheck[];
  details: Record<string, unknown>;
  /** RFC 3339 UTC with milliseconds. */
  tested_at: string;
}

export type Row = Record<string, unknown>;

export interface ReadRequest {
  /** A table to read whole; `schema.table` or `table` (then the connector's default schema). */
  table?: string;
  /** A query to read; takes precedence over `table`. */
  query?: string;
  /** Rows per batch; default 5000. */
  batchSize?: number;
  signal?: AbortSignal;
  /** The calling tenant: file-based connectors (file, duckdb) work in its own folder of the data root, and fail without it. */
  tenantId?: string;
  /** The executor's connection pools: database drivers reuse this connector's connections (with `tenantId`). */
  pool?: PoolScope | undefined;
  /**
   * The memory, threads and spill of a DuckDB instance the driver opens (the duckdb connector's file); default
   * DEFAULT_DUCKDB_LIMITS, without spill. Set by the caller after the node's config, as `pool` is: a config key of
   * this name must never stand in for the platform's limits.
   */
  duckdbLimits?: DuckdbLimits | undefined;
  [k: string]: unknown;
}

export type WriteMode = 'append' | 'overwrite' | 'upsert';

export interface WriteRequest {
  table: string;
  mode: WriteMode;
  /** The conflict key for `upsert` (and the primary key of a table the sink creates). */
  key?: string[];
  /** A missing target table is created from the input's column types (default true); false fails the node instead. */
  create?: boolean;
  /** `add_columns`: a column the target table lacks is added; by default such a column fails the node, naming it. */
  schema_evolution?: 'none' | 'add_columns';
  signal?: AbortSignal;
  /** The calling tenant: file-based connectors (file, duckdb) work in its own folder of the data root, and fail without it. */
  tenantId?: string;
  /** The executor's connection pools: database drivers reuse this connector's connections (with `tenantId`). */
  pool?: PoolScope | undefined;
  /**
   * The memory, threads and spill of a DuckDB instance the driver opens (the duckdb connector's file); default
   * DEFAULT_DUCKDB_LIMITS, without spill. Set by the caller after the node's config, as `pool` is: a config key of
   * this name must never stand in for the platform's limits.
   */
  duckdbLimits?: DuckdbLimits | undefined;
  [k: string]: unknown;
}

/**
 * Rows as PostgreSQL COPY CSV (no header line; NULL is an unquoted empty field), with the names of their columns.
 * Drivers that speak it on both ends let a source feed a sink without turning the rows into values in between.
 */
export interface CsvChunk {
  columns: readonly string[];
  csv: string | Buffer;
  /**
   * Per column, the decimal places the source declares for a numeric one: `s` of numeric(p,s), `any` for an
   * unbounded numeric, undefined for any other type. A sink whose column would round such text checks it first.
   */
  scales?: readonly (number | 'any' | undefined)[];
}

/** A column as a source's own catalog declares it, in DuckDB's type system (never guessed from values). */
export interface ColumnSpec {
  name: string;
  /** DuckDB's type as SQL, e.g. `DECIMAL(12,2)`, `BIGINT`, `TIMESTAMP WITH TIME ZONE`, `UUID`, `INTEGER[]`, `JSON`. */
  type: string;
  /** The source's own type name (e.g. `numeric(12,2)`, `bigint unsigned`), for messages and run schemas. */
  source_type?: string;
}

/**
 * A table of the run's DuckDB workspace that a typed read fills or a typed write empties. The workspace is sandboxed
 * (tenants' SQL runs in it); `scratchDir` is the one folder in which DuckDB may read and write files, so a driver can
 * move data in bulk through DuckDB's own readers and writers (COPY output read by `read_csv` with declared types).
 */
export interface DuckDBTable {
  connection: DuckDBConnection;
  /** The table's name, unquoted. */
  table: string;
  /** The run's own folder for files DuckDB reads or writes; removed with the run. */
  scratchDir: string;
  /** What the transfer may buffer, from the run's memory limit; default DEFAULT_TRANSFER_BUFFERS. */
  buffers?: TransferBuffers;
}

/** What a typed read made: the rows it loaded and the columns, with the types the source declared. */
export interface TypedReadResult {
  rows: number;
  columns: ColumnSpec[];
}

export interface TestOptions {
  /** The whole test finishes within this time; default 10000. */
  timeoutMs?: number;
  signal?: AbortSignal;
  /** The calling tenant: file-based connectors (file, duckdb) work in its own folder of the data root, and fail without it. */
  tenantId?: string;
}

export interface ExecuteOptions {
  signal?: AbortSignal;
  /** The calling tenant: file-based connectors (file, duckdb) work in its own folder of the data root, and fail without it. */
  tenantId?: string;
  /** The executor's connection pools: database drivers reuse this connector's connections (with `tenantId`). */
  pool?: PoolScope | undefined;
  /**
   * The memory, threads and spill of a DuckDB instance the driver opens (the duckdb connector's file); default
   * DEFAULT_DUCKDB_LIMITS, without spill. Set by the caller (the executor: its run's).
   */
  duckdbLimits?: DuckdbLimits | undefined;
}

export interface ConnectorDriver {
  readonly info: ConnectorTypeInfo;
  /**
   * The node config fields this driver reads beyond a source's or sink's standard ones (`params`), when declared:
   * pipeline validation then reports any other field of a source or sink on it as a typo (`mdoe`, `kye`).
   */
  readonly nodeFields?: { readonly source?: readonly string[]; readonly sink?: readonly string[] };
  /** Really connects, step by step, within `timeoutMs` (default 10000); never throws: failures are in the result. */
  test(config: Record<string, unknown>, opts?: TestOptions): Promise<TestResult>;
  /** Streams rows in batches (bounded memory). */
  read?(config: Record<string, unknown>, req: ReadRequest): AsyncIterable<Row[]>;
  /** Writes batches in bulk; returns rows written. */
  write?(
    config: Record<string, unknown>,
    req: WriteRequest,
    batches: AsyncIterable<Row[]>,
  ): Promise<{ rows_written: number }>;
  /** Streams rows as COPY CSV (bounded memory); the generator's return value counts the rows. */
  readCsv?(config: Record<string, unknown>, req: ReadRequest): AsyncGenerator<CsvChunk, { rows_read: number }>;
  /**
   * Whether `writeCsv` takes this request exactly as `writeFromTable` would take the same rows: the executor hands a
   * source's CSV straight to this sink only then. CSV carries no column types, so a target that must be created or
   * widened from the input's types (a missing table, `schema_evolution: add_columns`) is no.
   */
  csvTargetReady?(config: Record<string, unknown>, req: WriteRequest): Promise<boolean>;
  /** Writes COPY CSV chunks (as `write` writes batches); returns rows written. */
  writeCsv?(
    config: Record<string, unknown>,
    req: WriteRequest,
    chunks: AsyncIterable<CsvChunk>,
  ): Promise<{ rows_written: number }>;
  /**
   * Reads into a new table of the run's DuckDB, its columns of the types the source's own catalog declares (numeric
   * stays DECIMAL, bigint BIGINT, dates DATE...), in bulk. Preferred over `read` where a driver has it.
   */
  readIntoTable?(config: Record<string, unknown>, req: ReadRequest, target: DuckDBTable): Promise<TypedReadResult>;
  /**
   * Writes a DuckDB table's rows with their types (mapped to the target's: DECIMAL -> numeric(p,s)...), creating a
   * missing target table unless `req.create === false`. Preferred over `write` where a driver has it.
   */
  writeFromTable?(
    config: Record<string, unknown>,
    req: WriteRequest,
    source: DuckDBTable,
  ): Promise<{ rows_written: number }>;
  /** Runs one statement (DDL, refresh, procedure). */
  execute?(config: Record<string, unknown>, sql: string, opts?: ExecuteOptions): Promise<{ rows_affected: number }>;
}
