/**
 * A statement's whole result, read in this thread. `run()` (of a connection or a prepared statement) answers a
 * materialized result: DuckDB has already computed every chunk by then. node-api's `runAndReadAll` still fetches each
 * chunk, and then the empty one that ends them, as a task of libuv's pool, so a one-row answer cost two more trips
 * through the pool and the event loop after the statement's own (~0.1-0.3 ms of CPU and wall a call here,
 * bench/README.md): a run's every transform node took two such calls. The chunks are taken from the materialized
 * result directly instead, in the same order, into node-api's own reader, so callers read it as before.
 */
import duckdb, { type DuckDBDataChunk, type DuckDBMaterializedResult, type DuckDBResultReader } from '@duckdb/node-api';

const { DuckDBResultReader: ResultReader } = duckdb;

/** `await readAll(connection.run(sql, values))`, `await readAll(prepared.run())`: as their `runAndReadAll()`. */
export async function readAll(
  running: Promise<DuckDBMaterializedResult> | DuckDBMaterializedResult,
): Promise<DuckDBResultReader> {
  const result = await running;
  // A streaming result (stream()) has no chunks to take: it would read as empty, never as what it holds.
  if (result.isStreaming) throw new Error('readAll reads a materialized result (run()), not a streaming one');
  const count = result.chunkCount;
  let next = 0;
  // The reader asks for chunks until one is missing or empty, as it does of DuckDB's own fetch.
  result.fetchChunk = (): Promise<DuckDBDataChunk | null> =>
    Promise.resolve(next < count ? result.getChunk(next++) : null);
  const reader = new ResultReader(result);
  await reader.readAll();
  return reader;
}
