/**
 * The bounds of the DuckDB instance the duckdb connector opens on a tenant's file: its memory, threads and spill are
 * the platform's (the caller's, an executor passing its run's), never DuckDB's defaults (80% of the machine's memory,
 * every core, spill beside the file in the tenant's folder up to 90% of its disk), and SQL cannot change them
 * (database.ts locks the configuration).
 */
import { randomUUID } from 'node:crypto';
import { realpath } from 'node:fs/promises';
import { isAbsolute, join, relative, sep } from 'node:path';
import { ConnectorError } from '../connector-error.js';
import { connectorEnvironment } from '../environment.js';
import type { DuckdbLimits } from '../types.js';

const MiB = 1024 * 1024;

/** What an instance gets without limits (tools, tests, a caller that passes none). */
export const DEFAULT_DUCKDB_LIMITS = {
  memoryLimitBytes: 128 * MiB,
  threads: 1,
  spillLimitBytes: 1024 * MiB,
} as const;

/** The instance's settings from its limits: given at creation (`config`), and the spill cap set after it. */
export interface InstanceLimits {
  config: Record<string, string>;
  /** max_temp_directory_size: DuckDB 1.5.6 shows one given at creation but does not enforce it, so it is SET. */
  maxTempDirectorySize: string;
  /** The instance's own spill folder (DuckDB makes it when it first spills), removed after close; none: no spill. */
  spillFolder: string | undefined;
}

const invalid = (what: string): ConnectorError =>
  new ConnectorError(`invalid duckdb limits: ${what} (the caller's, not the connector's config)`, 'config_error');

const isWhole = (value: unknown, min: number): value is number =>
  typeof value === 'number' && Number.isSafeInteger(value) && value >= min;

const kib = (bytes: number): string => `${Math.floor(bytes / 1024)}KiB`;

const inside = (root: string, target: string): boolean => {
  const rel = relative(root, target);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
};

/**
 * The spill folder of one instance in `directory`. Never under the data root: spill there would count against no
 * limit of the platform's and lie among the tenants' files.
 */
async function spillFolderIn(directory: unknown): Promise<string> {
  if (typeof directory !== 'string' || !isAbsolute(directory)) throw invalid('spillDirectory must be an absolute path');
  const real = await realpath(directory).catch(() => {
    throw invalid('spillDirectory must be an existing folder');
  });
  const root = connectorEnvironment().dataRoot;
  const realRoot = await realpath(root).catch(() => root);
  if (inside(realRoot, real)) throw invalid('spillDirectory may not lie under the data root');
  return join(real, `duckdb-connector-${randomUUID()}`);
}

/** Checks `limits` (from the caller, so never trusted blindly) and fills in the defaults. */
export async function instanceLimits(limits: DuckdbLimits | undefined): Promise<InstanceLimits> {
  const {
    memoryLimitBytes = DEFAULT_DUCKDB_LIMITS.memoryLimitBytes,
    threads = DEFAULT_DUCKDB_LIMITS.threads,
    spillDirectory,
    spillLimitBytes = DEFAULT_DUCKDB_LIMITS.spillLimitBytes,
  } = limits ?? {};
  if (!isWhole(memoryLimitBytes, 8 * MiB)) throw invalid('memoryLimitBytes must be a whole number of at least 8 MiB');
  if (!isWhole(threads, 1)) throw invalid('threads must be a whole number of at least 1');
  if (!isWhole(spillLimitBytes, 0)) throw invalid('spillLimitBytes must be a whole number of bytes');
  const spillFolder = spillDirectory === undefined ? undefined : await spillFolderIn(spillDirectory);
  return {
    config: {
      memory_limit: kib(memoryLimitBytes),
      threads: String(threads),
      // An empty temp_directory turns spilling off: past memory_limit a statement fails instead.
      temp_directory: spillFolder ?? '',
      // As the executor's run instances (run-memory.ts): freed memory goes back to the system soon after a peak.
      allocator_flush_threshold: kib(Math.max(MiB, memoryLimitBytes / 8)),
      allocator_bulk_deallocation_flush_threshold: kib(Math.max(MiB, memoryLimitBytes / 4)),
    },
    maxTempDirectorySize: kib(spillFolder === undefined ? 0 : spillLimitBytes),
    spillFolder,
  };
}
