/** What an llm decision's prompt may show of its input: the first rows, the row count and the columns. */
import type { DuckDBConnection } from '@duckdb/node-api';
import { plainValue } from '@conduit/connectors';
import { quoteIdent } from '../../../data/sql-names.js';

export interface DecisionInput {
  /** The first `sample_rows` rows, as row sinks get them (shown to the model as JSON). */
  rows: Record<string, unknown>[];
  row_count: number;
  /** `name TYPE` of each column. */
  columns: string[];
}

/** Reads `view` (the decision's output view over its inputs). */
export async function readDecisionInput(
  connection: DuckDBConnection,
  view: string,
  sampleRows: number,
): Promise<DecisionInput> {
  const sample = await connection.runAndReadAll(
    `select * from ${quoteIdent(view)} limit ${Math.max(0, Math.floor(sampleRows))}`,
  );
  const names = sample.columnNames();
  const types = sample.columnTypes();
  const counted = await connection.runAndReadAll(`select count(*) from ${quoteIdent(view)}`);
  return {
    // The values row sinks get (safe integers as numbers, timestamps as Dates), shown as JSON.
    rows: sample.convertRowObjects(plainValue),
    row_count: Number(counted.getRows()[0]?.[0] ?? 0),
    columns: names.map((name, i) => `${name} ${String(types[i])}`),
  };
}
