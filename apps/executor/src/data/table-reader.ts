/** Streams a node table's rows out as plain-JS batches (bounded memory), for the row sinks (http, queues...). */
import type { DuckDBConnection } from '@duckdb/node-api';
import { heapSizedSelect, rowBatches, type HeapBound, type Row } from '@conduit/connectors';
import { quoteIdent } from './sql-names.js';

export const DEFAULT_SINK_BATCH_ROWS = 5000;

/**
 * What the rows a row sink holds at once may take as JS values, estimated in DuckDB before they are converted
 * (heapSizedSelect, @conduit/connectors): a table's rows are the tenant's to size, and the heap is every run's on the
 * executor. A batch (about an http sink's request body) and a row alone at most 8 MiB; one chunk of DuckDB's (2,048
 * rows, converted whole: node-api keeps a chunk's values until the next) at most 64 MiB, so 32 KiB a row of text on
 * average, or 4 KiB a row of nested values (weighted eight times their JSON).
 */
export const SINK_HEAP_BOUND: HeapBound = { batch: 8 * 1024 * 1024, row: 8 * 1024 * 1024, chunk: 64 * 1024 * 1024 };

export async function* readBatches(
  connection: DuckDBConnection,
  table: string,
  batchRows = DEFAULT_SINK_BATCH_ROWS,
  signal?: AbortSignal,
): AsyncGenerator<Row[]> {
  const sql = await heapSizedSelect(connection, quoteIdent(table));
  yield* rowBatches(await connection.stream(sql), batchRows, signal, SINK_HEAP_BOUND);
}
