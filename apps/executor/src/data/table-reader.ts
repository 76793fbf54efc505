/** Streams a DuckDB query's rows out as plain-JS batches, one DuckDB chunk at a time (bounded memory). */
import type { DuckDBConnection } from '@duckdb/node-api';
import { rowBatches, type Row } from '@conduit/connectors';

export const DEFAULT_SINK_BATCH_ROWS = 5000;

export async function* readBatches(
  connection: DuckDBConnection,
  sql: string,
  batchRows = DEFAULT_SINK_BATCH_ROWS,
  signal?: AbortSignal,
): AsyncGenerator<Row[]> {
  yield* rowBatches(await connection.stream(sql), batchRows, signal);
}
