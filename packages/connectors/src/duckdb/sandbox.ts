/**
 * DuckDB settings that keep SQL inside the database it runs in: no file system access beyond the database file
 * itself (and the platform's own spill directory), no extension installed or loaded on demand, and the configuration
 * locked, so a statement cannot turn any of this back on (`SET`, `RESET`, `PRAGMA` all fail once locked).
 */
import duckdb, { type DuckDBConnection, type DuckDBInstance } from '@duckdb/node-api';

/** The locks, in the order DuckDB applies them: access off before the lock, the lock last. */
const LOCKS: Readonly<Record<string, string>> = {
  autoload_known_extensions: 'false',
  autoinstall_known_extensions: 'false',
  allow_community_extensions: 'false',
  allow_unsigned_extensions: 'false',
  enable_external_access: 'false',
  lock_configuration: 'true',
};

/**
 * Constants are not folded while a statement is planned: DuckDB's expression rewriter computes them outside the
 * instance's memory_limit and past any interrupt, so `select repeat('a', 2000000000)` took 2-9 GB of the process
 * before a row ran. Unfolded, the same expression runs as the query does, under memory_limit (an `Out of Memory
 * Error` at once) and interruptible; results are the same, only such constants are computed per row.
 */
const PLANNING: Readonly<Record<string, string>> = { disabled_optimizers: 'expression_rewriter' };

/**
 * A DuckDB instance config: the platform's own settings (memory_limit, threads, temp_directory, access_mode...),
 * the planning rule above, then the locks. Order matters: DuckDB refuses temp_directory once external access is off,
 * so the platform's settings go first (object keys keep their insertion order and the binding applies them in that
 * order).
 */
export function sandboxedConfig(platform: Readonly<Record<string, string>> = {}): Record<string, string> {
  const config: Record<string, string> = {};
  for (const [key, value] of Object.entries(platform)) if (!(key in LOCKS) && !(key in PLANNING)) config[key] = value;
  return { ...config, ...PLANNING, ...LOCKS };
}

/**
 * A config for an instance the platform still has to prepare with SQL before anyone else's SQL runs on it: the same
 * locks but external access and the lock left for {@link lockDown}. DuckDB's C API cannot set the list settings
 * (`allowed_paths`) at creation.
 */
export function preparableConfig(platform: Readonly<Record<string, string>> = {}): Record<string, string> {
  const { enable_external_access: _access, lock_configuration: _lock, ...rest } = sandboxedConfig(platform);
  return rest;
}

const sqlString = (text: string): string => `'${text.replace(/'/g, "''")}'`;

/**
 * Allows exactly `paths` (files the platform itself reads or writes) and everything under `directories` (a run's own
 * scratch folder), then turns external access off and locks.
 */
export async function lockDown(
  connection: DuckDBConnection,
  paths: readonly string[],
  directories: readonly string[] = [],
): Promise<void> {
  if (paths.length > 0) await connection.run(`set allowed_paths = [${paths.map(sqlString).join(', ')}]`);
  if (directories.length > 0)
    await connection.run(`set allowed_directories = [${directories.map(sqlString).join(', ')}]`);
  await connection.run('set enable_external_access = false');
  await connection.run('set lock_configuration = true');
}

let parser: Promise<DuckDBInstance> | undefined;

/**
 * Runs `work` on a connection of its own (a connection runs one thing at a time) to a locked, empty in-memory
 * database shared by the process: where SQL is parsed without any run's tables (save time).
 */
export async function withParsingConnection<T>(work: (connection: DuckDBConnection) => Promise<T>): Promise<T> {
  parser ??= duckdb.DuckDBInstance.create(':memory:', sandboxedConfig({ threads: '1', memory_limit: '64MB' })).catch(
    (err: unknown) => {
      parser = undefined;
      throw err;
    },
  );
  const connection = await (await parser).connect();
  try {
    return await work(connection);
  } finally {
    connection.closeSync();
  }
}
