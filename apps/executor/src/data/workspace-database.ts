/**
 * The locked DuckDB instance runs execute in, kept for run after run by one executor slot (workspace-pool.ts).
 * Creating an instance costs ~8 ms of CPU here (it registers ~3,000 built-in functions, on a libuv thread, so the
 * main thread's profile never shows it) and closing one ~1.5 ms (freeing them); giving the next run a fresh default
 * database costs a fraction of that. The instance is sandboxed once, at creation, as before: the platform's
 * memory_limit, threads and temp_directory, external access off but for the slot's scratch folder, no extensions,
 * configuration locked.
 *
 * Between runs, {@link recycle} detaches the default database `memory` (every table, view, macro, sequence, type and
 * schema a run made goes with it: DuckDB cannot create entries in `system`) and attaches an empty one under the same
 * name, so new connections land in it. Per-connection state (temp objects, prepared statements, variables, local
 * settings) ends with the run's connections, closed before. What a run could leave at the instance's level despite
 * the lock (another attached database, `CALL enable_logging()`, any changed setting) is checked against the state
 * the instance had when it was new: any difference, or any error, and the instance is closed instead of reused.
 * Secrets cannot be made at all (DuckDB's secret manager needs file access). What a run can still infer from the
 * instance's counters (catalog oids, transaction ids) is how many objects and statements earlier runs of the slot
 * made, not what they held (bench/README.md, "Where a run's time goes").
 */
import { mkdir, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import duckdb from '@duckdb/node-api';
import { lockDown, preparableConfig } from '@conduit/connectors';
import type { DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import type { RunMemory } from './run-memory.js';

/**
 * Everything a run can change at the instance's level: which databases are attached and every setting's value (a
 * run's `CALL enable_logging()` changes settings despite the lock). Read on the platform's own connection, whose
 * local settings never change. The log is emptied by the recycling itself.
 */
const INSTANCE_STATE_SQL =
  "select (select count(*) || ',' || count(*) filter (where database_name in ('memory', 'system', 'temp')) " +
  'from duckdb_databases()), ' +
  "(select string_agg(name || '=' || coalesce(value, '<null>'), ';') from duckdb_settings())";

/**
 * The default database is detached from a connection using another one: DuckDB refuses to detach the one in use.
 * One call (DuckDB runs them in order; its answer is not the last statement's rows, hence the state apart).
 */
const RECYCLE_SQL = [
  "attach ':memory:' as conduit_recycling",
  'use conduit_recycling',
  'detach memory',
  "attach ':memory:' as memory",
  'use memory',
  'detach conduit_recycling',
  'call truncate_duckdb_logs()',
].join(';\n');

export class WorkspaceDatabase {
  /** Until {@link close}. */
  private open = true;

  private constructor(
    private readonly instance: DuckDBInstance,
    /** The platform's connection: recycles and checks; never handed to a run. */
    private readonly platform: DuckDBConnection,
    /** DuckDB's temp_directory (spill files), and the parent of the runs' folders. */
    readonly dir: string,
    /** The one folder DuckDB may read and write files in; each run gets a folder of its own inside. */
    readonly scratchRoot: string,
    private readonly pristine: string,
  ) {}

  /** A new locked instance in a folder of its own under `dataDir`. */
  static async open(name: string, dataDir: string, memory: RunMemory): Promise<WorkspaceDatabase> {
    const dir = join(dataDir, `${name.replace(/[^\w-]/g, '_')}-${randomUUID().slice(0, 8)}`);
    const scratchRoot = join(dir, 'scratch');
    await mkdir(scratchRoot, { recursive: true });
    try {
      // preserve_insertion_order stays on (DuckDB's default): a transform's ORDER BY must reach a sink's file and
      // decide which row of a key an upsert keeps. The external file cache keys file contents by path: off, so a
      // file of an earlier run is never served for a later one's (the runs' folders differ anyway).
      const config = { ...memory.duckdb, temp_directory: dir, enable_external_file_cache: 'false' };
      const instance = await duckdb.DuckDBInstance.create(':memory:', preparableConfig(config));
      let platform: DuckDBConnection | undefined;
      try {
        platform = await instance.connect();
        // Before any run's connection: typed reads and writes move data through files of the scratch folder (DuckDB's
        // own CSV reader and writer), and nothing else on the machine.
        await lockDown(platform, [], [scratchRoot]);
        // As recycling leaves the platform's connection (its search_path is part of the state compared).
        await platform.run('use memory');
        return new WorkspaceDatabase(instance, platform, dir, scratchRoot, await instanceState(platform));
      } catch (err) {
        platform?.closeSync();
        instance.closeSync();
        throw err;
      }
    } catch (err) {
      await rm(dir, { recursive: true, force: true });
      throw err;
    }
  }

  async connect(): Promise<DuckDBConnection> {
    if (!this.open) throw new Error('the run database is closed');
    return this.instance.connect();
  }

  /**
   * Gives the next run an empty default database, once every connection of the last run is closed. Answers false
   * (and closes the instance) when the instance is not as it was new; the caller then opens another.
   */
  async recycle(): Promise<boolean> {
    if (!this.open) return false;
    try {
      await this.platform.run(RECYCLE_SQL);
      if ((await instanceState(this.platform)) === this.pristine && (await this.foldersEmpty())) return true;
    } catch {
      // A run that broke the instance (e.g. logging to a file it may not write) gets it closed, like any difference.
    }
    await this.close();
    return false;
  }

  /**
   * Whether the instance's folder holds nothing but an empty scratch folder, the runs' own folders being removed:
   * DuckDB lets SQL read and write its temp_directory, so a file a run left there (or a spill file DuckDB kept) would
   * be the next run's to read.
   */
  private async foldersEmpty(): Promise<boolean> {
    const [inDir, inScratch] = await Promise.all([readdir(this.dir), readdir(this.scratchRoot)]);
    return inDir.length === 1 && inDir[0] === 'scratch' && inScratch.length === 0;
  }

  /** Closes the instance and removes its folder. */
  async close(): Promise<void> {
    if (this.open) {
      this.open = false;
      this.platform.closeSync();
      this.instance.closeSync();
    }
    await rm(this.dir, { recursive: true, force: true });
  }
}

async function instanceState(connection: DuckDBConnection): Promise<string> {
  const row = (await connection.runAndReadAll(INSTANCE_STATE_SQL)).getRows()[0] ?? [];
  return row.map(String).join('\n');
}
