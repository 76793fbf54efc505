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
import { quoteIdent } from '../data/sql-names.js';
import { messageOf } from './node-failure.js';
import type { NodeColumns } from '../data/table-columns.js';
import type { NodeContext } from './node-context.js';

export type { NodeColumns };

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
 * The columns of a table or view of the run's DuckDB, in order, with DuckDB's types (`DESCRIBE`: the names and type
 * names duckdb_columns() gives, at a third of its cost, since it reads one table instead of listing every column of
 * every table and system view). `declared` (a typed source's own columns) adds each column's source type, matched
 * by name. A table that does not exist has none.
 */
export async function describeColumns(
  connection: DuckDBConnection,
  table: string,
  declared: readonly ColumnSpec[] = [],
): Promise<NodeColumns> {
  let rows: unknown[][];
  try {
    rows = (await connection.runAndReadAll(`describe ${quoteIdent(table)}`)).getRows();
  } catch (err) {
    if (messageOf(err).startsWith('Catalog Error')) return { columns: [], total: 0 };
    throw err;
  }
  const sourceTypes = new Map(
    declared.flatMap((c) => (c.source_type === undefined ? [] : [[c.name, c.source_type] as const])),
  );
  const columns = rows
    .slice(0, RUN_NODE_COLUMNS_MAX)
    .map(([name, type]) => columnOf(String(name), String(type), sourceTypes.get(String(name))));
  return { columns, total: rows.length };
}

/**
 * The columns of the node's own output table or view (named after it), recorded in the run's workspace for the nodes
 * that read it: a node's output never changes after its node (the tenant's SQL only reads).
 */
export async function outputColumns(
  ctx: NodeContext,
  connection: DuckDBConnection,
  declared: readonly ColumnSpec[] = [],
): Promise<NodeColumns> {
  const columns = await describeColumns(connection, ctx.node.id, declared);
  ctx.workspace.setTableColumns(ctx.node.id, columns);
  return columns;
}

/**
 * The columns of input `input`: as recorded when this execution made it (without the source types a typed source
 * declared: DESCRIBE has none), else described.
 */
export async function inputColumns(
  ctx: NodeContext,
  connection: DuckDBConnection,
  input: string,
): Promise<NodeColumns> {
  const known = ctx.workspace.knownTableColumns(input);
  if (!known) return describeColumns(connection, input);
  return { columns: known.columns.map(({ name, type }) => ({ name, type })), total: known.total };
}

/** Columns known only by name (the CSV hand-off passes PostgreSQL's text form, no DuckDB table): type null. */
export function namedColumns(names: readonly string[]): NodeColumns {
  return {
    columns: names.slice(0, RUN_NODE_COLUMNS_MAX).map((name) => columnOf(name, null, undefined)),
    total: names.length,
  };
}
