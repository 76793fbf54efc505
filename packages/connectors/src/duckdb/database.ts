/**
 * Opening the connector's DuckDB file for one call and always closing it again: DuckDB lets one process at a time
 * write a file, so holding it open would lock out every other process (and the executor's other runs). The file is
 * the tenant's (its folder of the data root), and is opened sandboxed (sandbox.ts): SQL on it reaches no other file,
 * and within the caller's limits (limits.ts), which SQL cannot change.
 */
import { mkdir, rm, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import duckdb, { type DuckDBConnection } from '@duckdb/node-api';
import { ConnectorError } from '../connector-error.js';
import { displayPath, resolveUnderDataRoot, tenantDataRoot } from '../data-root.js';
import type { ErrorClass } from '../types.js';
import type { DuckdbConfig } from './duckdb.config.js';
import type { DuckdbLimits } from '../types.js';
import { instanceLimits } from './limits.js';
import { lockDown, preparableConfig } from './sandbox.js';
import { readAll } from './read-all.js';

export interface OpenDatabase {
  connection: DuckDBConnection;
  /** Closes the file and removes the instance's spill folder. */
  close(): Promise<void>;
}

export interface OpenOptions {
  mode: 'read' | 'write';
  /** The calling tenant, whose folder the file is in; required. */
  tenantId: string | undefined;
  /** Files besides the database the platform's own SQL must read (a bulk load's staging file); default none. */
  allowedPaths?: readonly string[];
  /** The instance's memory, threads and spill; default DEFAULT_DUCKDB_LIMITS, without spill. */
  limits?: DuckdbLimits | undefined;
}

/** The database file of `cfg` in the tenant's folder. */
export async function databaseFile(
  cfg: DuckdbConfig,
  tenantId: string | undefined,
): Promise<{ root: string; file: string }> {
  const root = tenantDataRoot(tenantId);
  return { root, file: await resolveUnderDataRoot(root, 'path', cfg.path) };
}

/**
 * DuckDB opens an existing data file (`.csv`, `.parquet`, `.json`...) given as its database as an in-memory database
 * with a view over the file: a read sees the view, and what a sink or a sql node writes is lost when it closes.
 * Refused: such a file is the file connector's to read.
 */
async function refuseDataFile(connection: DuckDBConnection, shown: string): Promise<void> {
  const reader = await readAll(
    connection.run('select path from duckdb_databases() where database_name = current_database()'),
  );
  if (reader.getRows()[0]?.[0] === null) throw dataFileRefusal(shown);
}

const dataFileRefusal = (shown: string): ConnectorError =>
  new ConnectorError(
    `"${shown}" is a data file, not a DuckDB database file (DuckDB would open it in memory, and what is written would be lost): read it with the file connector`,
    'config_error',
  );

/** Opens the file (read-only for reads, which then need it to exist); `close()` releases it. */
export async function openDatabase(cfg: DuckdbConfig, opts: OpenOptions): Promise<OpenDatabase> {
  const { mode, allowedPaths = [] } = opts;
  const { root, file } = await databaseFile(cfg, opts.tenantId);
  if (mode === 'read' && !(await stat(file).catch(() => null))) {
    throw new ConnectorError(`database file "${displayPath(root, file)}" does not exist`, 'config_error');
  }
  if (mode === 'write') await mkdir(dirname(file), { recursive: true });
  const limits = await instanceLimits(opts.limits);
  const platform = { ...(mode === 'read' ? { access_mode: 'READ_ONLY' } : {}), ...limits.config };
  // Locked after the spill cap is set (see InstanceLimits), always before anyone else's SQL.
  const instance = await duckdb.DuckDBInstance.create(file, preparableConfig(platform)).catch((err: unknown) => {
    // A data file opened read-only: DuckDB would open it in memory (refuseDataFile), which read-only it cannot.
    if (/Cannot launch in-memory database in read-only mode/.test(String((err as { message?: unknown })?.message)))
      throw dataFileRefusal(displayPath(root, file));
    throw toDuckdbError(err);
  });
  const connection = await instance.connect();
  const close = async () => {
    connection.closeSync();
    instance.closeSync();
    if (limits.spillFolder !== undefined) await rm(limits.spillFolder, { recursive: true, force: true });
  };
  try {
    await refuseDataFile(connection, displayPath(root, file));
    await connection.run(`set max_temp_directory_size = '${limits.maxTempDirectorySize}'`);
    await lockDown(connection, allowedPaths);
  } catch (err) {
    await close();
    throw toDuckdbError(err);
  }
  return { connection, close };
}

/** Runs `work` on the open file, interrupting it when `signal` aborts, and always closes the file. */
export async function withDatabase<T>(
  cfg: DuckdbConfig,
  opts: OpenOptions,
  signal: AbortSignal | undefined,
  work: (connection: DuckDBConnection) => Promise<T>,
): Promise<T> {
  signal?.throwIfAborted();
  const db = await openDatabase(cfg, opts);
  const onAbort = () => db.connection.interrupt();
  signal?.addEventListener('abort', onAbort, { once: true });
  try {
    return await work(db.connection);
  } catch (err) {
    throw signal?.aborted ? signal.reason : toDuckdbError(err);
  } finally {
    signal?.removeEventListener('abort', onAbort);
    await db.close();
  }
}

export function classifyDuckdbError(err: unknown): { error_class: ErrorClass; message: string } {
  if (err instanceof ConnectorError) return { error_class: err.errorClass, message: err.message };
  // Duck-typed: errors of the native binding come from another realm, where `instanceof Error` is false.
  const own = (err as { message?: unknown } | null)?.message;
  const message = typeof own === 'string' ? own : String(err);
  // Another process holding the file's lock, or an interrupted query, may pass on a retry; the rest is SQL or data.
  const transient = /Could not set lock|Conflicting lock|IO Error: Could not set lock|Interrupted/i.test(message);
  return { error_class: transient ? 'transient_error' : 'config_error', message: message.replace(/\s+/g, ' ').trim() };
}

export function toDuckdbError(err: unknown): ConnectorError {
  if (err instanceof ConnectorError) return err;
  const { error_class, message } = classifyDuckdbError(err);
  return new ConnectorError(message, error_class, { cause: err });
}

export const quoteIdent = (name: string): string => `"${name.replace(/"/g, '""')}"`;

/** `schema.table` names both; a bare name takes the connector's schema. */
export function qualifiedTable(name: string, defaultSchema: string): string {
  const dot = name.indexOf('.');
  const [schema, table] = dot < 0 ? [defaultSchema, name] : [name.slice(0, dot), name.slice(dot + 1)];
  if (schema === '' || table === '') throw new ConnectorError(`invalid table name "${name}"`, 'config_error');
  return `${quoteIdent(schema)}.${quoteIdent(table)}`;
}
