/** How a node attempt failed, and whether another attempt can help. */
import { ConnectorError } from '@conduit/connectors';
import { hideServerPaths, type ServerPaths } from './server-paths.js';

export class NodeFailure extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
    readonly code?: string,
  ) {
    super(message);
    this.name = 'NodeFailure';
  }
}

// DuckDB errors that another attempt cannot fix: the SQL or the data is wrong.
const PERMANENT_DUCKDB_ERROR =
  /^(Parser|Binder|Catalog|Conversion|Constraint|Invalid Input|Not implemented|Invalid) Error/;

/**
 * DuckDB's out-of-memory errors end with advice (SET threads, SET memory_limit...) that a tenant's SQL may not follow:
 * the run's memory and spill are the executor's settings. The first line is kept, and which limit it met is said.
 */
const OUT_OF_MEMORY = /^Out of Memory Error: [^\n]*/;
/** The spill cap (max_temp_directory_size, from RUN_SPILL_LIMIT): disk, though DuckDB words it as memory. */
const SPILL_FULL = /max_temp_directory_size/;
/**
 * An allocation the process refused (the executor's data-size limit, ops/data-limit.ts), not the run's buffer pool:
 * not tried again, as each attempt would take the whole executor to its limit again, beside the other runs.
 */
const ALLOCATION_REFUSED = /^Out of Memory Error: (Failed to allocate|Allocation failure)/;

function outOfMemoryFailure(message: string): NodeFailure | undefined {
  const first = OUT_OF_MEMORY.exec(message)?.[0].replace(/\.$/, '');
  if (first === undefined) return undefined;
  const limit = SPILL_FULL.test(message)
    ? "the statement needs more disk to spill to than a run may use here (the run's share of the executor's data dir)"
    : 'the statement needs more memory than a run may use here';
  return new NodeFailure(`${first}: ${limit}`, !ALLOCATION_REFUSED.test(message));
}

/** The message of any thrown value (duck-typed: errors from the native DuckDB binding come from another realm). */
export function messageOf(err: unknown): string {
  const own = (err as { message?: unknown } | null)?.message;
  return typeof own === 'string' && own !== '' ? own : String(err);
}

/**
 * A failure from any source (driver, DuckDB, our own checks) as a NodeFailure with a message safe to report: with
 * `hide`, the server's paths and the tenant id are taken out of it (server-paths.ts), whoever worded it.
 */
export function toNodeFailure(err: unknown, hide?: ServerPaths): NodeFailure {
  const failure = asNodeFailure(err);
  if (hide === undefined) return failure;
  const message = hideServerPaths(failure.message, hide);
  return message === failure.message ? failure : new NodeFailure(message, failure.retryable, failure.code);
}

function asNodeFailure(err: unknown): NodeFailure {
  if (err instanceof NodeFailure) return err;
  if (err instanceof ConnectorError) {
    return new NodeFailure(err.message, err.errorClass === 'transient_error', err.code);
  }
  const message = messageOf(err);
  return outOfMemoryFailure(message) ?? new NodeFailure(message, !PERMANENT_DUCKDB_ERROR.test(message));
}
