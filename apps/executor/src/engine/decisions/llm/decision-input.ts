/** What an llm decision's prompt may show of its input: the first rows, the row count and the columns. */
import type { DuckDBConnection } from '@duckdb/node-api';
import { plainValue, readAll } from '@conduit/connectors';
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
  const bytes = await sampleJsonBytes(connection, view, limit);
  if (bytes > SAMPLE_JSON_LIMIT_BYTES) {
    throw new NodeFailure(
      `the ${limit} sample rows the prompt may show take ${bytes} bytes as JSON, more than ${SAMPLE_JSON_LIMIT_BYTES}: ` +
        'lower sample_rows, or select fewer or shorter columns in the node before',
      false,
    );
  }
  const sample = await readAll(connection.run(`select * from ${quoteIdent(view)} limit ${limit}`));
  const names = sample.columnNames();
  const types = sample.columnTypes();
  const counted = await readAll(connection.run(`select count(*) from ${quoteIdent(view)}`));
  return {
    // The values row sinks get (safe integers as numbers, timestamps as Dates), shown as JSON.
    rows: sample.convertRowObjects(plainValue),
    row_count: Number(counted.getRows()[0]?.[0] ?? 0),
    columns: names.map((name, i) => `${name} ${String(types[i])}`),
  };
}

/**
 * About what the first `limit` rows of `view` take as JSON objects, measured where they are, before any is read here:
 * each value's JSON (per column: COLUMNS(*), which no column name can shadow as a row alias could) and, per row, each
 * column's quoted name.
 */
async function sampleJsonBytes(connection: DuckDBConnection, view: string, limit: number): Promise<number> {
  const sample = `(select * from ${quoteIdent(view)} limit ${limit})`;
  const names = (await readAll(connection.run(`select * from ${sample} limit 0`))).columnNames();
  const sized = await readAll(
    connection.run(`select count(*), sum(coalesce(strlen(to_json(COLUMNS(*))::varchar), 4)) from ${sample}`),
  );
  const [count, ...values] = sized.getRows()[0] ?? [];
  const valueBytes = values.reduce<number>((sum, v) => sum + Number(v ?? 0), 0);
  const nameBytes = names.reduce((sum, name) => sum + JSON.stringify(name).length + 2, 0);
  return valueBytes + Number(count ?? 0) * nameBytes;
}
