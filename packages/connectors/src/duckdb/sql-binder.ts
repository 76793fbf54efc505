/**
 * Binding a tenant's SELECT (transform or rules-decision SQL) against tables declared by their columns, without any
 * data and without running it: the tables are created empty, and the statement is only prepared, through the same
 * check as at run time (prepareUserSql). The answer is the statement's output columns with DuckDB's types, or what
 * the binder could not resolve (a table, a column, a type or function). It all happens on a connection of its own to
 * the process's locked, empty in-memory DuckDB (sandbox.ts); the tables are temporary, so they live and die with that
 * connection and no other one sees them.
 */
import duckdb, { type DuckDBConnection, type DuckDBPreparedStatement, type DuckDBType } from '@duckdb/node-api';
import { ConnectorError } from '../connector-error.js';
import { quoteIdent } from './database.js';
import { withParsingConnection } from './sandbox.js';
import { prepareUserSql } from './user-sql.js';

/** A column as a run declares it: its name and DuckDB's type as SQL, e.g. `DECIMAL(12,2)`. */
export interface BindColumn {
  name: string;
  type: string;
}

export interface BindInput {
  /** The table's name as the SQL reads it: a node id. */
  name: string;
  columns: readonly BindColumn[];
}

/**
 * `bound`: the output columns. `unknown_table` and `unknown_column`: the SQL names what the declared tables do not
 * have. `unbindable`: another binder error (a type mismatch, an unknown function). `not_allowed`: refused by the
 * user-SQL check (the message completes "the SQL ..."). `undeclared`: the SQL reads an input that could not be
 * declared (a type DuckDB does not read back). Messages are DuckDB's first lines, without the SQL excerpt, and
 * without its error class (`Binder Error: `), which `error` keeps.
 */
export type BindOutcome =
  | { kind: 'bound'; columns: BindColumn[] }
  | { kind: 'undeclared'; table: string }
  | { kind: 'unknown_table'; table: string | undefined; message: string; error: string }
  | { kind: 'unknown_column'; message: string; error: string }
  | { kind: 'unbindable'; message: string; error: string }
  | { kind: 'not_allowed'; message: string };

export interface SqlBinder {
  /** Creates an empty table; false when it cannot be declared (no columns, a type that is not one, a name taken). */
  declare(table: string, columns: readonly BindColumn[]): Promise<boolean>;
  /** Prepares `sql` (one SELECT) against the tables declared so far. */
  bind(sql: string): Promise<BindOutcome>;
}

/** The longest type declared: DuckDB's own for a struct of hundreds of fields or an enum of hundreds of labels. */
const DECLARABLE_TYPE_MAX = 1024 * 1024;

/** Words of a column definition beyond its type: a type string holding one is not a type (outside quotes). */
const CLAUSE_WORDS = /\b(default|generated|as|check|constraint|references|primary|unique|collate|using|not|null)\b/i;

/**
 * Whether `type` is only a type, the way DuckDB writes one (`DECIMAL(12,2)`, `STRUCT("a b" INTEGER)[]`,
 * `ENUM('x', 'y')`, `TIMESTAMP WITH TIME ZONE`): quoted names and strings, words, numbers, brackets, and commas only
 * inside brackets. Types come from recorded runs; this keeps one that is not from ever becoming more of the DDL.
 */
export function isDeclarableType(type: string): boolean {
  if (type.length === 0 || type.length > DECLARABLE_TYPE_MAX) return false;
  const bare = type.replace(/"(?:[^"]|"")*"|'(?:[^']|'')*'/g, ' q ');
  if (!/^[A-Za-z0-9_ (),[\]]+$/.test(bare) || CLAUSE_WORDS.test(bare.replace(/\bWITH TIME ZONE\b/gi, ''))) return false;
  let depth = 0;
  for (const ch of bare) {
    if (ch === '(' || ch === '[') depth += 1;
    else if (ch === ')' || ch === ']') depth -= 1;
    else if (ch === ',' && depth === 0) return false;
    if (depth < 0) return false;
  }
  return depth === 0;
}

// Duck-typed: errors of the native binding come from another realm, so `instanceof Error` is false for them.
const messageOf = (err: unknown): string => {
  const own = (err as { message?: unknown } | null)?.message;
  return typeof own === 'string' ? own : String(err);
};

/** The longest message kept: DuckDB's can hold a value the SQL computed (a struct key it did not find), of any size. */
const MESSAGE_MAX = 1000;

/**
 * DuckDB's message without the SQL excerpt (`LINE 1: ...` and its caret) and without a table suggestion, which
 * names whatever DuckDB holds (its own views) rather than the pipeline's tables; cut at MESSAGE_MAX characters.
 */
function plainMessage(message: string): string {
  return clipped(
    excerptless(message)
      .filter((line) => !/^Did you mean/.test(line))
      .join(' ')
      .replace(/^(Binder|Catalog) Error: /, ''),
  );
}

/** DuckDB's message without the SQL excerpt, its class kept, on one line and cut at MESSAGE_MAX characters. */
function errorLine(message: string): string {
  return clipped(excerptless(message).join(' '));
}

/** The non-empty lines of DuckDB's message before its SQL excerpt (`LINE 1: ...` and its caret), trimmed. */
function excerptless(message: string): string[] {
  const cut = message.slice(0, MESSAGE_MAX * 4);
  const head = cut.split(/\n\s*LINE \d+:/)[0] ?? cut;
  return head
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '');
}

const clipped = (text: string): string => (text.length > MESSAGE_MAX ? `${text.slice(0, MESSAGE_MAX - 1)}…` : text);

/** What DuckDB's binder error means for the SQL's author. */
function outcomeOfBindError(err: unknown): BindOutcome {
  const raw = messageOf(err);
  const message = plainMessage(raw);
  const error = errorLine(raw);
  const table = /^Catalog Error: Table with name (.+?) does not exist!/.exec(raw);
  if (table) return { kind: 'unknown_table', table: table[1], message, error };
  if (/^Catalog Error: (Schema|Catalog) with name .+ does not exist/.test(raw))
    return { kind: 'unknown_table', table: undefined, message, error };
  if (
    /^Binder Error: (Referenced column .+ not found|Table .+ does not have a column named|Values list .+ does not have a column named)/.test(
      raw,
    )
  ) {
    return { kind: 'unknown_column', message, error };
  }
  return { kind: 'unbindable', message, error };
}

const { DuckDBTypeId } = duckdb;

/**
 * A type as DuckDB's SQL writes it, keeping aliases (`JSON`, which the binding's own toString writes as its
 * storage type VARCHAR) at every depth, so a derived column reads as the run's table of it would.
 */
function sqlTypeOf(type: DuckDBType): string {
  if (type.alias) return type.alias;
  switch (type.typeId) {
    case DuckDBTypeId.LIST:
      return `${sqlTypeOf(type.valueType)}[]`;
    case DuckDBTypeId.ARRAY:
      return `${sqlTypeOf(type.valueType)}[${type.length}]`;
    case DuckDBTypeId.MAP:
      return `MAP(${sqlTypeOf(type.keyType)}, ${sqlTypeOf(type.valueType)})`;
    case DuckDBTypeId.STRUCT:
      return `STRUCT(${type.entryNames.map((name, i) => `${quoteIdent(name)} ${sqlTypeOf(type.entryTypes[i]!)}`).join(', ')})`;
    case DuckDBTypeId.UNION:
      return `UNION(${type.memberTags.map((tag, i) => `${quoteIdent(tag)} ${sqlTypeOf(type.memberTypes[i]!)}`).join(', ')})`;
    default:
      return type.toString();
  }
}

async function declareOn(
  connection: DuckDBConnection,
  table: string,
  columns: readonly BindColumn[],
): Promise<boolean> {
  if (columns.length === 0 || !columns.every((c) => isDeclarableType(c.type))) return false;
  const ddl = `create temp table ${quoteIdent(table)} (${columns.map((c) => `${quoteIdent(c.name)} ${c.type}`).join(', ')})`;
  try {
    const extracted = await connection.extractStatements(ddl);
    if (extracted.count !== 1) return false;
    const prepared = await extracted.prepare(0);
    try {
      if (prepared.statementType !== duckdb.StatementType.CREATE) return false;
      await prepared.run();
    } finally {
      prepared.destroySync();
    }
    return true;
  } catch {
    // A type DuckDB does not know, two columns of one name, a table declared twice: this table stays unknown.
    return false;
  }
}

async function bindOn(connection: DuckDBConnection, sql: string): Promise<BindOutcome> {
  let prepared;
  try {
    prepared = await prepareUserSql(connection, sql, 'select');
  } catch (err) {
    if (err instanceof ConnectorError) return { kind: 'not_allowed', message: err.message };
    return outcomeOfBindError(err);
  }
  try {
    const columns: BindColumn[] = [];
    for (let i = 0; i < prepared.columnCount; i++)
      columns.push({ name: prepared.columnName(i), type: sqlTypeOf(prepared.columnType(i)) });
    return { kind: 'bound', columns };
  } finally {
    prepared.destroySync();
  }
}

/** Runs `work` with a binder whose tables are its own and gone once `work` ends. */
export function withSqlBinder<T>(work: (binder: SqlBinder) => Promise<T>): Promise<T> {
  return withParsingConnection((connection) =>
    work({
      declare: (table, columns) => declareOn(connection, table, columns),
      bind: (sql) => bindOn(connection, sql),
    }),
  );
}

/**
 * Binds one SELECT against `inputs`, each declared as an empty table. An input that cannot be declared is left out;
 * SQL that reads it answers `undeclared` (binding stopped at its name, short of what binding against it computes).
 */
export function bindUserSql(sql: string, inputs: readonly BindInput[]): Promise<BindOutcome> {
  return withSqlBinder(async (binder) => {
    const undeclared = new Set<string>();
    for (const input of inputs)
      if (!(await binder.declare(input.name, input.columns))) undeclared.add(input.name.toLowerCase());
    const outcome = await binder.bind(sql);
    if (outcome.kind === 'unknown_table' && outcome.table !== undefined && undeclared.has(outcome.table.toLowerCase()))
      return { kind: 'undeclared', table: outcome.table };
    return outcome;
  });
}

/** The columns of a prepared statement, as bindUserSql declares them elsewhere (DuckDB's SQL for each type). */
export function bindColumnsOf(prepared: DuckDBPreparedStatement): BindColumn[] {
  const columns: BindColumn[] = [];
  for (let i = 0; i < prepared.columnCount; i++)
    columns.push({ name: prepared.columnName(i), type: sqlTypeOf(prepared.columnType(i)) });
  return columns;
}

/** Table (or view) `table` of `connection`'s database as bindUserSql declares it elsewhere. */
export async function bindInputOf(connection: DuckDBConnection, table: string): Promise<BindInput> {
  const prepared = await connection.prepare(`select * from ${quoteIdent(table)}`);
  try {
    return { name: table, columns: bindColumnsOf(prepared) };
  } finally {
    prepared.destroySync();
  }
}
