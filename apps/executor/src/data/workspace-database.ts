/**
 * The locked DuckDB instance runs execute in, kept for run after run by one executor slot (workspace-pool.ts).
 * Creating an instance costs ~8 ms of CPU here (it registers ~3,000 built-in functions, on a libuv thread, so the
 * main thread's profile never shows it) and closing one ~1.5 ms (freeing them); giving the next run a fresh default
 * database costs a fraction of that. The instance is sandboxed once, at creation, as before: the platform's
 * memory_limit, threads and temp_directory, external access off but for the slot's scratch folder, no extensions,
 * configuration locked.
 *
 * Each run gets a database of its own, attached under a fresh name (`run_<uuid>`) that every connection handed out
 * `use`s: {@link recycle} attaches the next run's empty one and detaches the last run's (every table, view, macro,
 * sequence, type and schema it made goes with it: DuckDB cannot create entries in `system`), so a connection or query
 * that outlived its run finds its database gone rather than the next run's. Recycling also requires the platform's
 * connection to be the only one left open. Per-connection state (temp objects, prepared statements, variables, local
 * settings) ends with the run's connections, closed before. What a run could leave at the instance's level despite
 * the lock (another attached database, `CALL enable_logging()`, any changed setting) is checked against the state
 * the instance had when it was new: any difference, or any error, and the instance is closed instead of reused. That
 * check is made after every run that may have run a tenant's SQL (RunWorkspace connect), not after a run of the
 * platform's own statements alone (a source into a sink), which cannot change what it compares.
 * Secrets cannot be made at all (DuckDB's secret manager needs file access). What a run can still infer from the
 * instance's counters (catalog oids, transaction ids) is how many objects and statements earlier runs of the slot
 * made, not what they held (bench/README.md, "Where a run's time goes").
 */
import { mkdir, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import duckdb from '@duckdb/node-api';
import { lockDown, preparableConfig, readAll } from '@conduit/connectors';
import type { DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import type { RunMemory } from './run-memory.js';

/**
 * Everything a run can change at the instance's level: the connections still open, which databases are attached
 * and every setting's value (a run's `CALL enable_logging()` changes settings despite the lock). Read on the
 * platform's own connection, whose local settings never change but for search_path, which follows the run database
 * it `use`s (left out, as is that database's name, new at each recycle). Plain rows, compared as a sorted text in
 * JS: DuckDB's `string_agg(... order by ...)` of the same rows costs as much again as reading them (~0.8 ms here).
 * The log is emptied by the recycling itself.
 */
const INSTANCE_STATE_SQL =
  "select 'setting ' || name, coalesce(value, '<null>') from duckdb_settings() where name <> 'search_path' " +
  "union all select 'database', if(database_name = current_database(), '<run>', database_name) " +
  'from duckdb_databases() ' +
  "union all select 'connections', count::varchar from duckdb_connection_count()";

/** A run database's name: fresh for each run, so nothing holding an earlier run's name reaches a later run's. */
const runDatabaseName = (): string => `run_${randomUUID().replace(/-/g, '')}`;

/**
 * The next run's database attached and the platform's connection moved to it, the last run's detached (DuckDB
 * refuses to detach the database in use). One call: DuckDB runs them in order and stops at the first that fails, so
 * with a connection of the last run still open (or a statement running on one), which would see the next run's
 * database listed, none of it is done: the instance is closed instead, before that database exists. The check is a
 * filter that errs on a row, not a scalar subquery: 0.34 against 0.48 ms of CPU here.
 */
const switchSql = (from: string, to: string): string =>
  [
    "select error('a connection of the last run is open') from duckdb_connection_count() where count <> 1",
    `attach ':memory:' as ${to}`,
    `use ${to}`,
    `detach ${from}`,
    'call truncate_duckdb_logs()',
  ].join(';\n');

/** The entries (settings, databases, counts) whose value differs between two states, by name only. */
function changedEntries(pristine: string, state: string): string {
  const [before, after] = [pristine.split('\n'), state.split('\n')];
  const changed = [
    ...before.filter((line) => !after.includes(line)),
    ...after.filter((line) => !before.includes(line)),
  ];
  return [...new Set(changed.map((line) => line.slice(0, line.indexOf('='))))].slice(0, 5).join(', ');
}

/** Switches `platform` from run database `from` to a new `to` (see {@link switchSql}). */
async function switchRunDatabase(platform: DuckDBConnection, from: string, to: string): Promise<void> {
  await platform.run(switchSql(from, to));
}

/** The instance's state ({@link INSTANCE_STATE_SQL}) as one text, compared with its state when new. */
async function instanceState(platform: DuckDBConnection): Promise<string> {
  const rows = (await readAll(platform.run(INSTANCE_STATE_SQL))).getRows();
  return rows
    .map(([what, value]) => `${String(what)}=${String(value)}`)
    .sort()
    .join('\n');
}

/**
 * Statements an interrupt did not stop ({@link WorkspaceDatabase.strand}), by connection, until each ends: closing the
 * connection (or its instance) before would wait for the statement with the event loop held.
 */
const stranded = new Set<DuckDBConnection>();

/**
 * How many statements of this process run on after being given up. While any does, a normal exit would wait for it
 * too (libuv joins its threads at exit): the process then ends with SIGKILL (endWithKillWhileStranded).
 */
export function strandedStatements(): number {
  return stranded.size;
}

let killOnExit = false;

/**
 * However the process exits (main's drain, an uncaught error), while a stranded statement runs it ends with SIGKILL:
 * `exit` listeners run before libuv's teardown, which would wait for the statement, for years if need be.
 */
function endWithKillWhileStranded(): void {
  if (killOnExit) return;
  killOnExit = true;
  process.on('exit', () => {
    if (stranded.size > 0) process.kill(process.pid, 'SIGKILL');
  });
}

export class WorkspaceDatabase {
  /** Until {@link close}. */
  private open = true;
  /** A run's statement here would not stop ({@link strand}): the instance is never recycled. */
  private strandedOnce = false;
  /** Stranded statements still running: the instance closes only after them. */
  private holdsStranded = 0;
  /** Why the last {@link recycle} closed the instance: what changed (names only), the files left, or the error. */
  refusal: string | undefined;

  private constructor(
    private readonly instance: DuckDBInstance,
    /** The platform's connection: recycles and checks; never handed to a run. */
    private readonly platform: DuckDBConnection,
    /** DuckDB's temp_directory (spill files), and the parent of the runs' folders. */
    readonly dir: string,
    /** The one folder DuckDB may read and write files in; each run gets a folder of its own inside. */
    readonly scratchRoot: string,
    private readonly pristine: string,
    /** The database the next (or current) run works in: `run_<uuid>`, new at each recycle. */
    private runDatabase: string,
  ) {}

  /** The name of the database a run taking the instance now works in ({@link connect} takes it back). */
  get currentRun(): string {
    return this.runDatabase;
  }

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
        // Set, not given at creation: DuckDB 1.5.6 shows a created instance's max_temp_directory_size but does not
        // enforce it. Fixed here, it also never changes (left unset, the first spill turns it into a figure).
        await platform.run(`set max_temp_directory_size = '${Math.floor(memory.spillLimitBytes / 1024)}KiB'`);
        // Before any run's connection: typed reads and writes move data through files of the scratch folder (DuckDB's
        // own CSV reader and writer), and nothing else on the machine.
        await lockDown(platform, [], [scratchRoot]);
        // The default database `memory` goes: a connection that did not `use` the run's database reaches none.
        const runDatabase = runDatabaseName();
        await switchRunDatabase(platform, 'memory', runDatabase);
        const pristine = await instanceState(platform);
        return new WorkspaceDatabase(instance, platform, dir, scratchRoot, pristine, runDatabase);
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

  /** A connection in run database `runDatabase`, refused unless that is still the current run's. */
  async connect(runDatabase: string): Promise<DuckDBConnection> {
    if (!this.open || runDatabase !== this.runDatabase) throw new Error('the run database is closed');
    const connection = await this.instance.connect();
    try {
      // Checked again: the run may have ended while the connection opened.
      if (runDatabase !== this.runDatabase) throw new Error('the run database is closed');
      await connection.run(`use ${runDatabase}`);
      return connection;
    } catch (err) {
      connection.closeSync();
      throw err;
    }
  }

  /**
   * Gives the next run an empty default database, once every connection of the last run is closed. Answers false
   * (and closes the instance) when the instance is not as it was new; the caller then opens another.
   *
   * `check`: `whole` compares the instance's settings and databases with its state when new (~2 ms of CPU, half the
   * recycle), after a run in which a tenant's SQL may have run; `run` leaves that out, after a run that ran only the
   * platform's own statements (RunWorkspace connect), which change no setting and attach nothing: the last check
   * found the instance as new, and nothing since could change it. Both require every other connection closed and
   * the folder empty.
   */
  async recycle(check: 'whole' | 'run' = 'whole'): Promise<boolean> {
    if (!this.open) return false;
    this.refusal = undefined;
    if (this.strandedOnce) {
      this.refusal = 'a statement of the run did not stop when interrupted';
      await this.close();
      return false;
    }
    try {
      const next = runDatabaseName();
      await switchRunDatabase(this.platform, this.runDatabase, next);
      this.runDatabase = next;
      const state = check === 'whole' ? await instanceState(this.platform) : this.pristine;
      this.refusal =
        state === this.pristine ? await this.leftovers() : `changed: ${changedEntries(this.pristine, state)}`;
    } catch (err) {
      // A run that broke the instance (e.g. logging to a file it may not write) gets it closed, like any difference.
      this.refusal = `failed: ${err instanceof Error ? err.message : String(err)}`;
    }
    if (this.refusal === undefined) return true;
    await this.close();
    return false;
  }

  /**
   * What the instance's folder holds beyond an empty scratch folder, the runs' own folders being removed (undefined:
   * nothing): DuckDB lets SQL read and write its temp_directory, so a file a run left there (or a spill file DuckDB
   * kept) would be the next run's to read.
   */
  private async leftovers(): Promise<string | undefined> {
    const [inDir, inScratch] = await Promise.all([readdir(this.dir), readdir(this.scratchRoot)]);
    const left = [...inDir.filter((name) => name !== 'scratch'), ...inScratch.map((name) => join('scratch', name))];
    return left.length === 0 && inDir.includes('scratch') ? undefined : `files left: ${left.slice(0, 5).join(', ')}`;
  }

  /**
   * Gives up on `connection` (a run's, whose statement an interrupt did not stop): it stays open until `settled` (its
   * work, ended at last) has, and the instance is never recycled; if the instance was closed meanwhile ({@link close}
   * leaves it open while a statement runs), it closes with its last stranded statement.
   */
  strand(connection: DuckDBConnection, settled: Promise<unknown>): void {
    endWithKillWhileStranded();
    this.strandedOnce = true;
    this.holdsStranded += 1;
    stranded.add(connection);
    void settled
      .catch(() => undefined)
      .finally(() => {
        stranded.delete(connection);
        connection.closeSync();
        this.holdsStranded -= 1;
        if (!this.open && this.holdsStranded === 0) this.instance.closeSync();
      });
  }

  /** Closes the instance (unless it holds a stranded statement) and removes its folder. */
  async close(): Promise<void> {
    if (this.open) {
      this.open = false;
      this.platform.closeSync();
      if (this.holdsStranded === 0) this.instance.closeSync();
    }
    await rm(this.dir, { recursive: true, force: true });
  }
}
