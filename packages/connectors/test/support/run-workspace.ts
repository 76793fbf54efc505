/**
 * A DuckDB sandboxed as a run's workspace (apps/executor run-workspace.ts): in memory, external access off, files
 * allowed only under its own scratch folder; what typed reads fill. Removed with its folder.
 */
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import duckdb, { type DuckDBConnection, type DuckDBInstance } from '@duckdb/node-api';
import { lockDown, preparableConfig, type DuckDBTable } from '../../src/index.js';

export interface TestWorkspace {
  connection: DuckDBConnection;
  scratchDir: string;
  /** The DuckDBTable a typed read of node `table` fills (or a typed write empties), with the scratch folder to use. */
  target(table: string, scratchDir?: string): DuckDBTable;
  /** What is left in the scratch folders (a typed read or write must leave nothing). */
  scratchEntries(): Promise<string[]>;
  rows(sql: string): Promise<unknown[][]>;
  /** `[name, type]` of each column of `table`, as DuckDB names the types. */
  types(table: string): Promise<[string, string][]>;
  close(): Promise<void>;
}

export interface TestWorkspaceOptions {
  /** DuckDB's TimeZone; default UTC. Another one shows that text written in UTC does not depend on it. */
  timeZone?: string;
  /** Further folders the workspace may use as scratch folders (e.g. on another file system); the caller removes them. */
  extraScratchDirs?: string[];
}

export async function openTestWorkspace(opts: TestWorkspaceOptions = {}): Promise<TestWorkspace> {
  const scratchDir = await mkdtemp(join(tmpdir(), 'conduit-typed-scratch-'));
  const scratchDirs = [scratchDir, ...(opts.extraScratchDirs ?? [])];
  const instance: DuckDBInstance = await duckdb.DuckDBInstance.create(':memory:', preparableConfig({ threads: '1' }));
  const connection = await instance.connect();
  await connection.run(`set TimeZone = '${opts.timeZone ?? 'UTC'}'`);
  await lockDown(connection, [], scratchDirs);
  const rows = async (sql: string) => (await connection.runAndReadAll(sql)).getRowsJson() as unknown[][];
  return {
    connection,
    scratchDir,
    target: (table, dir = scratchDir) => ({ connection, table, scratchDir: dir }),
    scratchEntries: async () => (await Promise.all(scratchDirs.map((d) => readdir(d)))).flat(),
    rows,
    types: async (table) =>
      (await rows(`select column_name, column_type from (describe "${table}")`)) as [string, string][],
    async close() {
      connection.closeSync();
      instance.closeSync();
      await rm(scratchDir, { recursive: true, force: true });
    },
  };
}
