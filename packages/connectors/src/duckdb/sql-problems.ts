/**
 * What user SQL may not reach (user-sql.ts), found in DuckDB's JSON of a statement: its parse tree (what the text
 * says) and its bound plan (what DuckDB makes of it against the catalog, views and macros expanded).
 */
import { withParsingConnection } from './sandbox.js';
import { readAll } from './read-all.js';

/** Table functions that make rows out of values; every other one reads files, settings or the catalog. */
const ROW_MAKERS: ReadonlySet<string> = new Set([
  'range',
  'generate_series',
  'unnest',
  'json_each',
  'json_tree',
  'repeat_row',
]);

/** Scalar functions refused in user SQL, each with why. */
const SERVER_FUNCTIONS: ReadonlyMap<string, string> = new Map([
  // The server's settings or environment (paths of the operator's layout).
  ...['current_setting', 'getenv', 'getvariable'].map((name) => [name, "it reads the server's settings"] as const),
  // The instance's counters: an executor slot's instance serves run after run, so they would tell how many
  // connections, transactions and statements earlier runs (of any tenant) made.
  ...['current_connection_id', 'current_transaction_id', 'current_query_id', 'txid_current'].map(
    (name) => [name, "it reads the server's counters"] as const,
  ),
  // Waiting does nothing to data; it only holds an executor slot.
  ...['sleep_ms', 'pg_sleep'].map((name) => [name, 'it only waits'] as const),
  // SQL text of their own, which these checks never see: json_serialize_plan binds it, folding what it can
  // (`unnest([current_setting(...)])`) into the plan it answers.
  ...['json_serialize_plan', 'json_serialize_sql', 'json_deserialize_sql'].map(
    (name) => [name, 'it reads SQL text of its own, which is never checked'] as const,
  ),
  // DuckDB's own macros that read its catalog through a table function: refused by name, so the save-time check
  // (where the tables do not exist yet and nothing is bound) says what the run's bound plan would.
  ...['get_block_size', 'format_type', 'pg_get_constraintdef', 'pg_get_viewdef'].map(
    (name) => [name, "it reads DuckDB's catalog"] as const,
  ),
]);

/**
 * The first call of a refused function written in `sql`, as a message; undefined when none. Read from the text, before
 * DuckDB binds anything: binding evaluates what it can fold (a table function's arguments, a constant LIMIT) and a
 * CREATE ... AS keeps only the bound query, so the bound plan alone would see `range(length(current_setting(...)))`
 * as a number. Strings and comments are skipped; a quoted name counts as written (`"current_setting"(...)`).
 */
export function refusedCallInText(sql: string): string | undefined {
  for (const { name, next } of identifiers(sql)) {
    if (next !== '(') continue;
    const refused = SERVER_FUNCTIONS.get(name);
    if (refused) return `calls ${name}(), which is not allowed: ${refused}`;
  }
  return undefined;
}

/** Words between CREATE or DROP and SECRET: `create or replace persistent secret`, `drop temporary secret if exists`. */
const SECRET_MODIFIERS = new Set(['or', 'replace', 'persistent', 'temporary', 'temp']);

/**
 * A statement that creates or drops a DuckDB secret, as a message; undefined for any other. DuckDB's secret manager
 * reads and writes files of its own (~/.duckdb/stored_secrets): what such a statement does depends on whether the
 * process touched it before, so it is refused from its words, alike at save time and at run time.
 */
export function refusedStatementInText(sql: string): string | undefined {
  const words: string[] = [];
  for (const { name } of identifiers(sql)) {
    words.push(name);
    if (words.length > 5) break;
  }
  if (words[0] !== 'create' && words[0] !== 'drop') return undefined;
  const rest = words.slice(1);
  const at = rest.findIndex((word) => !SECRET_MODIFIERS.has(word));
  if (rest[at] !== 'secret') return undefined;
  return "creates or drops a secret, which is not allowed: a pipeline's credentials belong in its connectors";
}

/** Each identifier of `sql` (lower-cased unless quoted) with the first character after it, whitespace and comments skipped. */
function* identifiers(sql: string): Generator<{ name: string; next: string }> {
  let i = 0;
  let pending: string | undefined;
  const skipped = (at: number): number => {
    // Whitespace and comments (DuckDB's block comments nest, as PostgreSQL's do).
    for (;;) {
      while (at < sql.length && /\s/.test(sql[at]!)) at++;
      if (sql.startsWith('--', at)) {
        // As DuckDB's lexer: a line comment ends at a line feed or a carriage return.
        const end = sql.slice(at).search(/[\n\r]/);
        at = end === -1 ? sql.length : at + end + 1;
      } else if (sql.startsWith('/*', at)) {
        let depth = 0;
        while (at < sql.length) {
          if (sql.startsWith('/*', at)) {
            depth++;
            at += 2;
          } else if (sql.startsWith('*/', at)) {
            at += 2;
            if (--depth === 0) break;
          } else at++;
        }
      } else return at;
    }
  };
  while (i < sql.length) {
    i = skipped(i);
    if (i >= sql.length) break;
    const c = sql[i]!;
    if (pending !== undefined) {
      yield { name: pending, next: c };
      pending = undefined;
    }
    if (c === "'" || ((c === 'e' || c === 'E') && sql[i + 1] === "'")) {
      // A string: '' doubles a quote; E'...' also escapes with a backslash.
      const escapes = c !== "'";
      i += escapes ? 2 : 1;
      while (i < sql.length) {
        if (escapes && sql[i] === '\\') i += 2;
        else if (sql[i] === "'" && sql[i + 1] === "'") i += 2;
        else if (sql[i] === "'") break;
        else i++;
      }
      i++;
    } else if (c === '$' && /^\$[A-Za-z_]*\$/.test(sql.slice(i, i + 64))) {
      const tag = /^\$[A-Za-z_]*\$/.exec(sql.slice(i, i + 64))![0];
      const end = sql.indexOf(tag, i + tag.length);
      i = end === -1 ? sql.length : end + tag.length;
    } else if (c === '"') {
      let name = '';
      i++;
      while (i < sql.length) {
        if (sql[i] === '"' && sql[i + 1] === '"') {
          name += '"';
          i += 2;
        } else if (sql[i] === '"') break;
        else name += sql[i++];
      }
      i++;
      pending = name.toLowerCase();
    } else if (/[A-Za-z_\u0080-\uffff]/.test(c)) {
      const start = i;
      while (i < sql.length && /[\w$\u0080-\uffff]/.test(sql[i]!)) i++;
      pending = sql.slice(start, i).toLowerCase();
    } else i++;
  }
  if (pending !== undefined) yield { name: pending, next: '' };
}

/** Schemas and catalogs of DuckDB's own views (settings, databases with their paths, functions...). */
const SYSTEM_SCHEMAS: ReadonlySet<string> = new Set(['pg_catalog', 'information_schema']);
const SYSTEM_CATALOGS: ReadonlySet<string> = new Set(['system', 'temp']);
/** A name's one qualifier that still finds DuckDB's view of that name (a schema, or a catalog whose main schema). */
const VIEW_QUALIFIERS: ReadonlySet<string> = new Set(['main', ...SYSTEM_CATALOGS]);

/** DuckDB's own view names (duckdb_settings, pg_settings, duckdb_databases...), asked of DuckDB once. */
let systemViews: Promise<ReadonlySet<string>> | undefined;
export function systemViewNames(): Promise<ReadonlySet<string>> {
  systemViews ??= withParsingConnection((c) =>
    // Those an unqualified name reaches (main and pg_catalog); information_schema's (tables, columns...) need its name.
    readAll(
      c.run(
        "select distinct lower(view_name) from duckdb_views() where internal and schema_name <> 'information_schema'",
      ),
    ),
  )
    .then((reader) => new Set(reader.getRows().map((row) => String(row[0]))))
    .catch((err: unknown) => {
      systemViews = undefined;
      throw err;
    });
  return systemViews;
}

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

const isObject = (value: Json | undefined): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
export const text = (value: Json | undefined): string => (typeof value === 'string' ? value.toLowerCase() : '');

/**
 * The first thing in a parse tree (json_serialize_sql's of a SELECT, or the parsed parts of a bound plan: a CREATE's
 * view or macro body, a column's default) that reaches beyond its tables, as a message; undefined when none.
 */
export function treeProblem(node: Json, views: ReadonlySet<string>, ctes: ReadonlySet<string>): string | undefined {
  if (Array.isArray(node)) {
    for (const child of node) {
      const problem = treeProblem(child, views, ctes);
      if (problem) return problem;
    }
    return undefined;
  }
  if (!isObject(node)) return undefined;
  const names = new Set(ctes);
  for (const entry of isObject(node['cte_map']) && Array.isArray(node['cte_map']['map'])
    ? node['cte_map']['map']
    : []) {
    if (isObject(entry)) names.add(text(entry['key']));
  }
  if (node['type'] === 'TABLE_FUNCTION' && isObject(node['function'])) {
    const name = text(node['function']['function_name']);
    if (!ROW_MAKERS.has(name))
      return `calls the table function ${name}(), which is not allowed: SQL reads only the pipeline's own tables, never files, settings or the catalog`;
  }
  if (node['type'] === 'BASE_TABLE') {
    const table = text(node['table_name']);
    const schema = text(node['schema_name']);
    const catalog = text(node['catalog_name']);
    if (/[/\\]|\.(csv|tsv|json|jsonl|ndjson|parquet|txt|gz|zst)$/.test(table)) {
      return `reads the file "${table}", which is not allowed: SQL reads only the pipeline's own tables`;
    }
    if (
      SYSTEM_CATALOGS.has(catalog) ||
      SYSTEM_SCHEMAS.has(schema) ||
      // Unqualified (unless a CTE of the query), or qualified by a schema or catalog that reaches DuckDB's own views
      // where no table has the name: `main.duckdb_databases`, `system.pg_settings`, `temp.duckdb_tables`.
      (views.has(table) && (schema === '' ? !names.has(table) : catalog === '' && VIEW_QUALIFIERS.has(schema)))
    ) {
      return `reads DuckDB's own view ${[catalog, schema, table].filter((p) => p !== '').join('.')}, which is not allowed: SQL reads only the pipeline's own tables`;
    }
  }
  const refused = node['class'] === 'FUNCTION' ? SERVER_FUNCTIONS.get(text(node['function_name'])) : undefined;
  if (refused) return `calls ${text(node['function_name'])}(), which is not allowed: ${refused}`;
  for (const value of Object.values(node)) {
    const problem = treeProblem(value, views, names);
    if (problem) return problem;
  }
  return undefined;
}

/** Scans a bound plan may have: a table's own (seq_scan) and the row makers. */
const SCANS: ReadonlySet<string> = new Set([...ROW_MAKERS, 'seq_scan']);

/**
 * The first thing in a bound plan (json_serialize_plan, not optimized) that reaches beyond its tables, as a message;
 * undefined when none. Binding expands every view, macro and table macro, whoever made them and however nested, and
 * a function is still itself here: the optimizer has not yet folded current_setting() into its value.
 */
function boundProblem(node: Json): string | undefined {
  if (Array.isArray(node)) {
    for (const child of node) {
      const problem = boundProblem(child);
      if (problem) return problem;
    }
    return undefined;
  }
  if (!isObject(node)) return undefined;
  if (node['type'] === 'LOGICAL_GET' && !SCANS.has(text(node['name'])))
    return `uses the table function ${text(node['name'])}(), which is not allowed: SQL reads only the pipeline's own tables, never files, settings or the catalog`;
  const refused = typeof node['expression_class'] === 'string' ? SERVER_FUNCTIONS.get(text(node['name'])) : undefined;
  if (refused) return `calls ${text(node['name'])}(), which is not allowed: ${refused}`;
  // DuckDB computes a macro parameter's default once, when the macro is created: the plan holds only its value.
  if (Array.isArray(node['default_parameters']) && node['default_parameters'].length > 0)
    return 'gives a macro parameter a default, which is not allowed: DuckDB computes it when the macro is created, unchecked';
  for (const value of Object.values(node)) {
    const problem = boundProblem(value);
    if (problem) return problem;
  }
  return undefined;
}

/** The first problem of a statement's plan: what binding brought in, then what the statement stores unbound. */
export async function planProblem(plan: Json): Promise<string | undefined> {
  return boundProblem(plan) ?? treeProblem(plan, await systemViewNames(), new Set());
}
