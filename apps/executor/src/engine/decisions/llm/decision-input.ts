/** What an llm decision's prompt may show of its input: the first rows, the row count and the columns. */
import type { DuckDBConnection } from '@duckdb/node-api';
import { plainValueConverter } from '../../../data/duckdb-values.js';
import { quoteIdent } from '../../../data/sql-names.js';

export interface DecisionInput {
  /** The first `sample_rows` rows, as JSON-safe values. */
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
    // The values drivers get: safe integers as numbers, timestamps as ISO strings.
    rows: sample.convertRowObjects(plainValueConverter),
    row_count: Number(counted.getRows()[0]?.[0] ?? 0),
    columns: names.map((name, i) => `${name} ${String(types[i])}`),
  };
}
