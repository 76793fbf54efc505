/**
 * A node's output columns for Get Run Status: names and DuckDB types as the run's DuckDB holds them (never a row
 * value), bounded so that a very wide table cannot swell the run's reports.
 */
import duckdb from '@duckdb/node-api';
import type { DuckDBConnection, DuckDBType } from '@duckdb/node-api';
import { bindColumnsOf, readAll, type BindColumn, type ColumnSpec } from '@conduit/connectors';
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

const { DuckDBTypeId } = duckdb;

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
 * The types whose node-api name is DESCRIBE's, letter for letter (the spec compares them all with DESCRIBE): the
 * scalars a source's catalog maps to, enums, and lists, arrays and maps of them.
 */
const PRINTED_ALIKE = new Set<number>([
  DuckDBTypeId.BOOLEAN,
  DuckDBTypeId.TINYINT,
  DuckDBTypeId.SMALLINT,
  DuckDBTypeId.INTEGER,
  DuckDBTypeId.BIGINT,
  DuckDBTypeId.HUGEINT,
  DuckDBTypeId.UTINYINT,
  DuckDBTypeId.USMALLINT,
  DuckDBTypeId.UINTEGER,
  DuckDBTypeId.UBIGINT,
  DuckDBTypeId.UHUGEINT,
  DuckDBTypeId.FLOAT,
  DuckDBTypeId.DOUBLE,
  DuckDBTypeId.DECIMAL,
  DuckDBTypeId.VARCHAR,
  DuckDBTypeId.BLOB,
  DuckDBTypeId.BIT,
  DuckDBTypeId.UUID,
  DuckDBTypeId.DATE,
  DuckDBTypeId.TIME,
  DuckDBTypeId.TIME_NS,
  DuckDBTypeId.TIME_TZ,
  DuckDBTypeId.TIMESTAMP,
  DuckDBTypeId.TIMESTAMP_TZ,
  DuckDBTypeId.TIMESTAMP_S,
  DuckDBTypeId.TIMESTAMP_MS,
  DuckDBTypeId.TIMESTAMP_NS,
  DuckDBTypeId.INTERVAL,
  DuckDBTypeId.BIGNUM,
  DuckDBTypeId.ENUM,
]);

/**
 * DuckDB's name of a type as DESCRIBE prints it, from a prepared statement's column type: JSON (an alias of VARCHAR
 * that node-api prints as VARCHAR) by its alias, lists, arrays and maps by their parts. Null for any other type:
 * STRUCT and UNION, whose field names DESCRIBE quotes only where DuckDB's identifier rules need it (node-api quotes
 * every one), and whatever the spec does not compare; the caller then asks DESCRIBE.
 */
function describedType(type: DuckDBType): string | null {
  if (type.alias !== undefined) return type.alias === 'JSON' && type.typeId === DuckDBTypeId.VARCHAR ? 'JSON' : null;
  switch (type.typeId) {
    case DuckDBTypeId.LIST: {
      const element = describedType(type.valueType);
      return element === null ? null : `${element}[]`;
    }
    case DuckDBTypeId.ARRAY: {
      const element = describedType(type.valueType);
      return element === null ? null : `${element}[${type.length}]`;
    }
    case DuckDBTypeId.MAP: {
      const [key, value] = [describedType(type.keyType), describedType(type.valueType)];
      return key === null || value === null ? null : `MAP(${key}, ${value})`;
    }
    default:
      return PRINTED_ALIKE.has(type.typeId) ? type.toString() : null;
  }
}

/**
 * Names and DuckDB types of `select * from <table>` as DESCRIBE gives them, from the prepared statement alone (a
 * third of DESCRIBE's CPU here: 0.22 against 0.6 ms, bench/README.md), undefined when a type needs DESCRIBE's own
 * printing (describedType); and the table as SQL of the run reads it (bindColumnsOf), from the same statement.
 */
async function preparedColumns(
  connection: DuckDBConnection,
  table: string,
): Promise<{ described: { name: string; type: string }[] | undefined; bind: BindColumn[] }> {
  const prepared = await connection.prepare(`select * from ${quoteIdent(table)}`);
  try {
    const bind = bindColumnsOf(prepared);
    const described: { name: string; type: string }[] = [];
    for (let i = 0; i < prepared.columnCount; i++) {
      const type = describedType(prepared.columnType(i));
      if (type === null) return { described: undefined, bind };
      described.push({ name: prepared.columnName(i), type });
    }
    return { described, bind };
  } finally {
    prepared.destroySync();
  }
}

/**
 * The columns of a table or view of the run's DuckDB, in order, with DuckDB's types as `DESCRIBE` names them (read
 * from a prepared `select *` where its types print the same, else from DESCRIBE), and the table as SQL reads it
 * (`bind`). `declared` (a typed source's own columns) adds each column's source type, matched by name. A table that
 * does not exist has no columns and no `bind`.
 */
async function tableColumns(
  connection: DuckDBConnection,
  table: string,
  declared: readonly ColumnSpec[] = [],
): Promise<NodeColumns & { bind?: BindColumn[] }> {
  let found: { name: string; type: string }[];
  let bind: BindColumn[];
  try {
    const prepared = await preparedColumns(connection, table);
    bind = prepared.bind;
    found =
      prepared.described ??
      (await readAll(connection.run(`describe ${quoteIdent(table)}`)))
        .getRows()
        .map(([name, type]) => ({ name: String(name), type: String(type) }));
  } catch (err) {
    if (messageOf(err).startsWith('Catalog Error')) return { columns: [], total: 0 };
    throw err;
  }
  const sourceTypes = new Map(
    declared.flatMap((c) => (c.source_type === undefined ? [] : [[c.name, c.source_type] as const])),
  );
  const columns = found
    .slice(0, RUN_NODE_COLUMNS_MAX)
    .map(({ name, type }) => columnOf(name, type, sourceTypes.get(name)));
  return { columns, total: found.length, bind };
}

/** The columns of a table or view of the run's DuckDB, as tableColumns reports them. */
export async function describeColumns(
  connection: DuckDBConnection,
  table: string,
  declared: readonly ColumnSpec[] = [],
): Promise<NodeColumns> {
  const { columns, total } = await tableColumns(connection, table, declared);
  return { columns, total };
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
  const { columns, total, bind } = await tableColumns(connection, ctx.node.id, declared);
  ctx.workspace.setTableColumns(ctx.node.id, { columns, total });
  if (bind) ctx.workspace.setTableInput({ name: ctx.node.id, columns: bind });
  return { columns, total };
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
