/** What an llm decision's prompt may show of its input: the first rows, the row count and the columns. */
import type { DuckDBConnection } from '@duckdb/node-api';
import { plainValue } from '@conduit/connectors';
import { quoteIdent } from '../../../data/sql-names.js';
import { NodeFailure } from '../../node-failure.js';

/**
 * The most the sample rows may take as JSON (about 250,000 tokens, past what a model's context holds): they are read
 * into the executor's heap, which every run on it shares, and a table's rows are the tenant's to size.
 */
export const SAMPLE_JSON_LIMIT_BYTES = 1024 * 1024;

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
  const limit = Math.max(0, Math.floor(sampleRows));
  // Measured where the rows are, before any of them is read here.
  const sized = await connection.runAndReadAll(
    `select coalesce(sum(strlen(to_json(s)::varchar)), 0) from (select * from ${quoteIdent(view)} limit ${limit}) s`,
  );
  const bytes = Number(sized.getRows()[0]?.[0] ?? 0);
  if (bytes > SAMPLE_JSON_LIMIT_BYTES) {
    throw new NodeFailure(
      `the ${limit} sample rows the prompt may show take ${bytes} bytes as JSON, more than ${SAMPLE_JSON_LIMIT_BYTES}: ` +
        'lower sample_rows, or select fewer or shorter columns in the node before',
      false,
    );
  }
  const sample = await connection.runAndReadAll(`select * from ${quoteIdent(view)} limit ${limit}`);
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
