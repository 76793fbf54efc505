/** Streams a DuckDB query's rows out as plain-JS batches, one DuckDB chunk at a time (bounded memory). */
import type { DuckDBConnection } from '@duckdb/node-api';
import type { Row } from '@conduit/connectors';
import { plainValueConverter } from './duckdb-values.js';

export const DEFAULT_SINK_BATCH_ROWS = 5000;

export async function* readBatches(
  connection: DuckDBConnection,
  sql: string,
  batchRows = DEFAULT_SINK_BATCH_ROWS,
  signal?: AbortSignal,
): AsyncGenerator<Row[]> {
  const result = await connection.stream(sql);
  const names = result.deduplicatedColumnNames();
  let batch: Row[] = [];
  for (;;) {
    signal?.throwIfAborted();
    const chunk = await result.fetchChunk();
    if (!chunk || chunk.rowCount === 0) break;
    const columns = chunk.convertColumns(plainValueConverter);
    for (let r = 0; r < chunk.rowCount; r++) {
      const row: Row = {};
      for (let c = 0; c < names.length; c++) row[names[c]!] = columns[c]![r] ?? null;
      batch.push(row);
    }
    if (batch.length >= batchRows) {
      yield batch;
      batch = [];
    }
  }
  if (batch.length > 0) yield batch;
}
