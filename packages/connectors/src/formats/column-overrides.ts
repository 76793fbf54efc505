/**
 * A source node's `columns` overrides (`{ "amount": "DECIMAL(12,2)" }`) at run time: the shape is checked again with
 * the rule validation uses (@conduit/dag), then each type is parsed by DuckDB as a type alone and replaced by DuckDB's
 * own name for it. Only that canonical name ever reaches SQL text (a cast), and where a reader takes types as
 * arguments they go as string literals: a type string cannot become SQL.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { COLUMN_TYPE_PATTERN, columnOverrideProblems } from '@conduit/dag';
import { ConnectorError } from '../connector-error.js';
import { sqlString } from '../duckdb/parquet-transfer.js';
import type { ReadRequest } from '../types.js';
import { readAll } from '../duckdb/read-all.js';

/** Column name -> DuckDB type, in the order the node lists them. */
export type ColumnOverrides = ReadonlyMap<string, string>;

const fail = (message: string): never => {
  throw new ConnectorError(message, 'config_error');
};

/** The node's `columns` as given (shape checked; the types not yet parsed); empty when absent. */
export function columnOverridesOf(req: ReadRequest): ColumnOverrides {
  const value = req['columns'];
  const problems = columnOverrideProblems(value);
  if (problems.length > 0) {
    fail(problems.map((p) => `${p.column === undefined ? 'columns' : `columns.${p.column}`} ${p.message}`).join('; '));
  }
  return new Map(Object.entries((value ?? {}) as Record<string, string>));
}

/**
 * Each override's type as DuckDB names it (`decimal(12, 2)` -> `DECIMAL(12,2)`, `int` -> `INTEGER`). DuckDB parses
 * the text as a type only (`from_json`'s structure argument, given as a string literal); a text that is no type fails
 * as a config_error naming the column.
 */
export async function resolveColumnTypes(
  connection: DuckDBConnection,
  overrides: ColumnOverrides,
): Promise<Map<string, string>> {
  const resolved = new Map<string, string>();
  for (const [column, type] of overrides) {
    // Checked again here: a caller that skipped columnOverridesOf must not reach the parser with anything else.
    if (!COLUMN_TYPE_PATTERN.test(type)) fail(`columns.${column}: "${type}" is not a DuckDB type`);
    let canonical: string;
    try {
      const reader = await readAll(
        connection.run(`select typeof(from_json('null', ${sqlString(JSON.stringify(type))}))`),
      );
      canonical = String(reader.getRows()[0]?.[0]);
    } catch (err) {
      const reason = String((err as { message?: unknown }).message ?? err).split('\n')[0];
      return fail(`columns.${column}: "${type}" is not a DuckDB type (${reason})`);
    }
    // DuckDB's own rendering of a type built from those characters; anything else would be a surprise worth stopping on.
    if (!/^[A-Za-z0-9_ (),[\]"]+$/.test(canonical))
      fail(`columns.${column}: "${type}" is not a type a source column can take`);
    resolved.set(column, canonical);
  }
  return resolved;
}
