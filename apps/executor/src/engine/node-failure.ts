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
 * the run's memory is the executor's setting. The first paragraph is kept, and what the limit is said instead.
 */
const OUT_OF_MEMORY = /^Out of Memory Error: [^\n]*/;

function outOfMemoryMessage(message: string): string | undefined {
  const first = OUT_OF_MEMORY.exec(message)?.[0];
  return first === undefined ? undefined : `${first}: the statement needs more memory than a run may use here`;
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
  // Retryable as before: the executor's other runs may have held the memory this attempt lacked.
  return new NodeFailure(outOfMemoryMessage(message) ?? message, !PERMANENT_DUCKDB_ERROR.test(message));
}
