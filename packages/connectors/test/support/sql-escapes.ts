/**
 * The SQL-escape corpus (issue #14, finding 1): statements a tenant might put in a transform, a rules decision, a
 * duckdb source query or a duckdb sql node to reach the server's files, settings or extensions. Every one must be
 * refused in every node type, and the files must be neither read nor created. Used by the connectors tests, the
 * executor's engine tests and the e2e security suite, so all three try the same statements.
 *
 * Placeholders: `{secret}` a file outside the tenant's reach holding a marker, `{dir}` its folder, `{out}` a path the
 * statement would create (a file or a folder).
 */
export interface SqlEscape {
  name: string;
  sql: string;
  /** Names the table `t`, so DuckDB can judge it only where `t` exists (not at save time, in the catalog). */
  needsTable?: true;
}

export const SQL_ESCAPES: readonly SqlEscape[] = [
  // File readers, in every spelling.
  { name: 'read_text', sql: "select * from read_text('{secret}')" },
  { name: 'read_blob', sql: "select * from read_blob('{secret}')" },
  { name: 'read_csv', sql: "select * from read_csv('{secret}')" },
  { name: 'read_csv_auto', sql: "select * from read_csv_auto('{secret}', header = false)" },
  { name: 'read_json', sql: "select * from read_json('{secret}')" },
  { name: 'read_json_objects', sql: "select * from read_json_objects('{secret}')" },
  { name: 'read_ndjson_objects', sql: "select * from read_ndjson_objects('{secret}')" },
  { name: 'read_parquet', sql: "select * from read_parquet('{secret}')" },
  { name: 'parquet_metadata', sql: "select * from parquet_metadata('{secret}')" },
  { name: 'parquet_schema', sql: "select * from parquet_schema('{secret}')" },
  { name: 'sniff_csv', sql: "select * from sniff_csv('{secret}')" },
  { name: 'read_duckdb', sql: "select * from read_duckdb('{secret}')" },
  { name: 'glob of the folder', sql: "select * from glob('{dir}/*')" },
  { name: 'glob of the root', sql: "select * from glob('/*')" },
  { name: 'replacement scan of a quoted path', sql: "select * from '{secret}'" },
  { name: 'replacement scan of a csv path', sql: "select * from '{dir}/data.csv'" },
  { name: 'FROM-first reader', sql: "from read_text('{secret}')" },
  { name: 'reader in a scalar subquery', sql: "select (select content from read_text('{secret}')) as c" },
  { name: 'reader in a CTE', sql: "with s as (select * from read_text('{secret}')) select * from s" },
  { name: 'reader in an IN subquery', sql: "select 1 where 'x' in (select content from read_text('{secret}'))" },
  { name: 'reader with a list of files', sql: "select * from read_text(['{secret}'])" },
  { name: 'reader in mixed case', sql: "SeLeCt * FrOm ReAd_TeXt('{secret}')" },
  { name: 'schema-qualified reader', sql: "select * from main.read_text('{secret}')" },
  { name: 'summarize a reader', sql: "summarize select * from read_text('{secret}')" },
  { name: 'query() hiding a reader', sql: "select * from query('select * from read_text(''{secret}'')')" },
  { name: 'query_table() of a path', sql: "select * from query_table('{secret}')" },
  {
    name: 'serialized SQL executed',
    sql: "select * from json_execute_serialized_sql(json_serialize_sql('select * from read_text(''{secret}'')'))",
  },
  // Writing files.
  { name: 'copy to a file', sql: "copy (select 'stolen' as s) to '{out}'" },
  { name: 'copy to parquet', sql: "copy (select 1 as a) to '{out}' (format parquet)" },
  { name: 'copy from a file', sql: "copy main.t from '{secret}'", needsTable: true },
  { name: 'export database', sql: "export database '{out}'" },
  { name: 'create table from a reader', sql: "create table stolen as select * from read_text('{secret}')" },
  { name: 'create table from the settings', sql: 'create table stolen as select * from duckdb_settings()' },
  {
    name: 'insert from the databases and their paths',
    sql: 'insert into main.t select path from duckdb_databases()',
    needsTable: true,
  },
  // Other databases.
  { name: 'attach a file', sql: "attach '{out}' as other" },
  { name: 'attach in memory', sql: "attach ':memory:' as other" },
  { name: 'detach', sql: 'detach database if exists other' },
  { name: 'use', sql: 'use memory' },
  // Extensions.
  { name: 'install', sql: 'install httpfs' },
  { name: 'load', sql: 'load httpfs' },
  { name: 'install from a path', sql: "install '{out}'" },
  { name: 'update extensions', sql: 'update extensions' },
  // Settings.
  { name: 'set memory_limit', sql: "set memory_limit = '100GB'" },
  { name: 'set external access', sql: 'set enable_external_access = true' },
  { name: 'reset a setting', sql: 'reset memory_limit' },
  { name: 'unlock the configuration', sql: 'set lock_configuration = false' },
  { name: 'pragma setting', sql: "pragma memory_limit = '100GB'" },
  { name: 'pragma listing', sql: 'pragma database_list' },
  { name: 'set variable', sql: "set variable f = '{secret}'" },
  { name: 'current_setting', sql: "select current_setting('temp_directory') as t" },
  { name: 'getenv', sql: "select getenv('HOME') as h" },
  { name: 'duckdb_settings()', sql: 'select * from duckdb_settings()' },
  { name: 'pg_settings view', sql: 'select * from pg_catalog.pg_settings' },
  { name: 'duckdb_extensions()', sql: 'select * from duckdb_extensions()' },
  { name: 'duckdb_databases view (paths)', sql: 'select * from duckdb_databases' },
  { name: 'duckdb_secrets()', sql: 'select * from duckdb_secrets()' },
  { name: 'call a pragma function', sql: 'call pragma_version()' },
  { name: 'checkpoint', sql: 'checkpoint' },
  { name: 'vacuum', sql: 'vacuum' },
  { name: 'transaction', sql: 'begin transaction' },
  { name: 'prepare', sql: 'prepare p as select 1' },
  // A second statement, plain or hidden behind comments.
  { name: 'two selects', sql: 'select 1; select 2' },
  { name: 'select then copy', sql: "select 1 as a; copy (select 'stolen' as s) to '{out}'" },
  { name: 'second statement after a block comment', sql: "select 1 as a /* harmless */; attach '{out}' as other" },
  { name: 'second statement after a line comment', sql: "select 1 as a -- harmless\n; copy (select 1) to '{out}'" },
  { name: 'second statement behind a comment', sql: "select 1 as a; /* hidden */ select * from read_text('{secret}')" },
  { name: 'comment before the statement', sql: "/* select */ copy (select 1 as a) to '{out}'; --" },
];

/** The corpus with its placeholders filled in. */
export function sqlEscapes(paths: { secret: string; dir: string; out: string }): SqlEscape[] {
  return SQL_ESCAPES.map((escape) => ({
    ...escape,
    sql: escape.sql.replaceAll('{secret}', paths.secret).replaceAll('{dir}', paths.dir).replaceAll('{out}', paths.out),
  }));
}
