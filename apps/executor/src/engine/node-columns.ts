/**
 * A node's output columns for Get Run Status: names and DuckDB types as the run's DuckDB holds them (never a row
 * value), bounded so that a very wide table cannot swell the run's reports.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import type { ColumnSpec } from '@conduit/connectors';
import {
  RUN_NODE_COLUMN_NAME_MAX,
  RUN_NODE_COLUMN_TYPE_MAX,
  RUN_NODE_COLUMNS_MAX,
  type RunNodeColumn,
} from '@conduit/contracts';

/** The columns reported (at most RUN_NODE_COLUMNS_MAX) and how many the output really has. */
export interface NodeColumns {
  columns: RunNodeColumn[];
  total: number;
}

/**
 * Cuts a name or type to `max` characters, marking the cut so it is never mistaken for the real one. NUL and a
 * surrogate half (a cut emoji) become U+FFFD: PostgreSQL's jsonb, where the scheduler keeps them, refuses both.
 */
function clip(text: string, max: number): string {
  const cut = text.length <= max ? text : `${text.slice(0, max - 1)}…`;
  // eslint-disable-next-line no-control-regex -- NUL is exactly what must be replaced (jsonb refuses it)
  return cut.replace(/\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD');
}

function columnOf(name: string, type: string | null, sourceType: string | undefined): RunNodeColumn {
  const column: RunNodeColumn = {
    name: clip(name, RUN_NODE_COLUMN_NAME_MAX),
    type: type === null ? null : clip(type, RUN_NODE_COLUMN_TYPE_MAX),
  };
  if (sourceType !== undefined) column.source_type = clip(sourceType, RUN_NODE_COLUMN_TYPE_MAX);
  return column;
}

/**
 * The columns of a table or view of the run's DuckDB, in order, with DuckDB's types. `declared` (a typed source's
 * own columns) adds each column's source type, matched by name.
 */
export async function describeColumns(
  connection: DuckDBConnection,
  table: string,
  declared: readonly ColumnSpec[] = [],
): Promise<NodeColumns> {
  const prepared = await connection.prepare(
    `select column_name, data_type, count(*) over () from duckdb_columns()
     where database_name = current_database() and schema_name = current_schema() and table_name = $1
     order by column_index limit $2`,
  );
  prepared.bindVarchar(1, table);
  prepared.bindInteger(2, RUN_NODE_COLUMNS_MAX);
  const rows = (await prepared.runAndReadAll()).getRows();
  const sourceTypes = new Map(
    declared.flatMap((c) => (c.source_type === undefined ? [] : [[c.name, c.source_type] as const])),
  );
  const columns = rows.map(([name, type]) => columnOf(String(name), String(type), sourceTypes.get(String(name))));
  return { columns, total: rows.length === 0 ? 0 : Number(rows[0]![2]) };
}

/** Columns known only by name (the CSV hand-off passes PostgreSQL's text form, no DuckDB table): type null. */
export function namedColumns(names: readonly string[]): NodeColumns {
  return {
    columns: names.slice(0, RUN_NODE_COLUMNS_MAX).map((name) => columnOf(name, null, undefined)),
    total: names.length,
  };
}
