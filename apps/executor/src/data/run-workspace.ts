/**
 * A run's place to work: its DuckDB (workspace-database.ts: in memory, with the run's memory limit, spilling to the
 * instance's folder, sandboxed), a folder of its own for CSV hand-offs and one inside the instance's scratch folder
 * for typed reads and writes. Every node table lives in the database under its node id.
 */
import { mkdir, rm, rmdir } from 'node:fs/promises';
import { join } from 'node:path';
import { createHash, randomUUID } from 'node:crypto';
import type { BindInput, CsvChunk, DuckdbLimits, TransferBuffers } from '@conduit/connectors';
import type { DuckDBConnection } from '@duckdb/node-api';
import { DEFAULT_INTERRUPT_GRACE, StoppableWork, type InterruptGrace } from './interrupts.js';
import { holdChunkCollector } from './chunk-collector.js';
import { parseSize, type RunMemory } from './run-memory.js';
import { WorkspaceDatabase } from './workspace-database.js';
import type { NodeColumns } from './table-columns.js';

export interface WorkspaceOptions {
  /** Parent of the databases' folders. */
  dataDir: string;
  /** The run's memory: DuckDB's memory_limit and threads, and what bulk transfers may buffer. */
  memory: RunMemory;
  /** How long a node's interrupted DuckDB work may run on before it is given up (data/interrupts.ts). */
  interrupts?: InterruptGrace;
}

/** A node's output kept as a COPY CSV file (see engine/nodes/csv-handoff.ts) rather than a DuckDB table. */
export interface CsvOutput {
  path: string;
  columns: readonly string[];
  /** The numeric columns' declared decimal places, as the source's chunks carried them (CsvChunk.scales). */
  scales?: CsvChunk['scales'];
  rows: number;
}

export class RunWorkspace {
  /**
   * The connections handed out and not given back, each with the work its node runs on it once told ({@link runs}):
   * what {@link close} waits for before closing one.
   */
  private readonly connections = new Map<DuckDBConnection, Promise<unknown> | undefined>();
  /**
   * Connections a node gave back whole: the run's next node takes one instead of opening its own (~0.4 ms of DuckDB
   * work each: the connection and its `use`). Only this run's nodes share them, one node at a time.
   */
  private readonly idle: DuckDBConnection[] = [];
  /** Rows of node tables made in this execution, as DuckDB answered the statement that made each (a transform's). */
  private readonly tableRows = new Map<string, number>();
  /** Columns of node tables and views made in this execution, as described when each was made. */
  private readonly tableColumns = new Map<string, NodeColumns>();
  /** Node tables as SQL reads them ({@link setTableInput}), each with its digest. */
  private readonly tableInputs = new Map<string, { input: BindInput; digest: Buffer }>();
  /** What recordedInputsDigest answers, until the next table is recorded. */
  private inputsDigest: Buffer | undefined;
  /** Set by {@link close}: no connection is handed out after it. */
  private closed = false;
  /** Whether a connection was handed out for a tenant's SQL ({@link connect}); set before that SQL can run. */
  ranTenantSql = false;
  private readonly csvOutputs = new Map<string, CsvOutput>();
  /** The run's streams' finished chunks are freed while it is open (chunk-collector.ts). */
  private releaseCollector: (() => void) | undefined;

  private constructor(
    readonly database: WorkspaceDatabase,
    /**
     * The run's own folder (CSV hand-offs). It lies in DuckDB's temp_directory, which DuckDB lets SQL read and write
     * whatever the sandbox says; the user SQL checker refuses file functions, and only this run's files are there.
     */
    readonly spillDir: string,
    /** The one folder this run's DuckDB work reads and writes files in (typed bulk reads and writes). */
    readonly scratchDir: string,
    /** What a typed read or write of this run may buffer (handed to the drivers with each table). */
    readonly buffers: TransferBuffers,
    /** Whether {@link close} closes the database too (a database of its own, not a pool's). */
    private readonly ownsDatabase: boolean,
    /**
     * The bounds of a DuckDB a connector opens for this run (the duckdb connector's file): half the run's memory_limit
     * and spill limit, its threads, spilling into the run's own folder. Drivers get it after the node's config.
     */
    readonly duckdbLimits: DuckdbLimits,
    /** The run's database in the instance (workspace-database.ts): every connection handed out `use`s it. */
    private readonly runDatabase: string,
    readonly runId: string,
    /** How long a node's interrupted work may run on (withDuckDB), and who is told when it is given up. */
    readonly interrupts: InterruptGrace,
  ) {}

  /** A workspace on a database of its own, closed with it (runs without a pool: tests, in-process runs). */
  static async open(runId: string, opts: WorkspaceOptions): Promise<RunWorkspace> {
    const database = await WorkspaceDatabase.open(runId, opts.dataDir, opts.memory);
    try {
      return (await RunWorkspace.within(database, runId, opts.memory, true, opts.interrupts)).begin();
    } catch (err) {
      await database.close();
      throw err;
    }
  }

  /** A workspace for `runId` on `database` (empty: new or recycled), with folders of its own. */
  static async within(
    database: WorkspaceDatabase,
    runId: string,
    memory: RunMemory,
    ownsDatabase = false,
    interrupts: InterruptGrace = DEFAULT_INTERRUPT_GRACE,
  ): Promise<RunWorkspace> {
    const name = `${runId.replace(/[^\w-]/g, '_')}-${randomUUID().slice(0, 8)}`;
    const spillDir = join(database.dir, `run-${name}`);
    const scratchDir = join(database.scratchRoot, name);
    await Promise.all([mkdir(spillDir), mkdir(scratchDir)]);
    // Half the run's DuckDB pool and spill: the connector's instance works beside the run's own, and the two together
    // stay near what the executor's sizing gives a run (docs/operations.md).
    const duckdbLimits: DuckdbLimits = {
      memoryLimitBytes: Math.max(8 * 1024 * 1024, Math.floor(parseSize(memory.duckdb.memory_limit)! / 2)),
      threads: Number(memory.duckdb.threads),
      spillDirectory: spillDir,
      spillLimitBytes: Math.floor(memory.spillLimitBytes / 2),
    };
    return new RunWorkspace(
      database,
      spillDir,
      scratchDir,
      memory.buffers,
      ownsDatabase,
      duckdbLimits,
      database.currentRun,
      runId,
      interrupts,
    );
  }

  /** Starts the run's use of the workspace. */
  begin(): this {
    this.releaseCollector ??= holdChunkCollector();
    return this;
  }

  /**
   * A connection of its own for one node: nodes run in parallel and each can be interrupted alone. `sql` says whose
   * statements it runs: `platform` only the platform's own (loads, reads, counts, views of node ids), whose identifiers
   * and types are quoted or come from a catalog's printed types; `tenant` (the default) a tenant's SQL too, after which
   * the run's end checks the whole instance against its state when new (WorkspaceDatabase.recycle).
   */
  async connect(sql: 'tenant' | 'platform' = 'tenant'): Promise<DuckDBConnection> {
    if (this.closed) throw new Error("the run's workspace is closed");
    if (sql === 'tenant') this.ranTenantSql = true;
    const kept = this.idle.pop();
    if (kept) {
      this.connections.set(kept, undefined);
      return kept;
    }
    const connection = await this.database.connect(this.runDatabase);
    if (this.closed) {
      // Opened while the run ended: never handed out, so the recycle check does not find it open.
      connection.closeSync();
      throw new Error("the run's workspace is closed");
    }
    this.connections.set(connection, undefined);
    return connection;
  }

  /**
   * `work` runs on `connection`, handed out and not given back: if the run ends first, {@link close} interrupts it until
   * it has returned (its own promise, the one thing that says no statement of it runs or is still to start).
   */
  runs(connection: DuckDBConnection, work: Promise<unknown>): void {
    if (this.connections.has(connection)) this.connections.set(connection, work);
  }

  /**
   * Takes a node's connection back: kept for the run's next node when `whole` (its node ended without an error or an
   * interrupt, so no statement runs on it and no transaction is open; the tenant's SQL is one checked SELECT, which
   * can leave nothing on its connection but a random seed, and withDuckDB does not keep a connection whose SQL may
   * seed), else closed.
   */
  release(connection: DuckDBConnection, whole = false): void {
    if (!this.connections.delete(connection)) return;
    if (whole && !this.closed) this.idle.push(connection);
    else connection.closeSync();
  }

  /**
   * Gives up on a node's connection whose statement an interrupt did not stop (withDuckDB): it is closed, by its
   * database, only once `settled` (the node's work) has, and the instance is never reused (WorkspaceDatabase.strand).
   * The interrupt policy's owner is told.
   */
  strand(connection: DuckDBConnection, settled: Promise<unknown>): void {
    if (this.connections.delete(connection)) this.giveUp(connection, settled);
  }

  /** A connection no longer counted as handed out, left to its database until `settled`; the policy's owner told. */
  private giveUp(connection: DuckDBConnection, settled: Promise<unknown>): void {
    this.database.strand(connection, settled);
    this.interrupts.onStranded?.(this.runId);
  }

  /**
   * Records the rows of node table `nodeId` as DuckDB answered the statement that made it: a node table never changes
   * after its node (the tenant's SQL only reads), so its inputs' counts need not be asked again.
   */
  setTableRows(nodeId: string, rows: number): void {
    this.tableRows.set(nodeId, rows);
  }

  /** The rows of node table `nodeId` when this execution made it; undefined when it must be counted. */
  knownTableRows(nodeId: string): number | undefined {
    return this.tableRows.get(nodeId);
  }

  /** Records the columns of node table `nodeId` as described when it was made (see {@link setTableRows}). */
  setTableColumns(nodeId: string, columns: NodeColumns): void {
    this.tableColumns.set(nodeId, columns);
  }

  /** The columns of node table `nodeId` when this execution made it; undefined when they must be described. */
  knownTableColumns(nodeId: string): NodeColumns | undefined {
    return this.tableColumns.get(nodeId);
  }

  /**
   * Records node table (or view) `nodeId` as SQL of its run reads it: its exact columns, once its node has made it
   * whole (a node table never changes after its node: the tenant's SQL only reads).
   */
  setTableInput(input: BindInput): void {
    const digest = createHash('sha256').update(JSON.stringify(input)).digest();
    this.tableInputs.set(input.name, { input, digest });
    this.inputsDigest = undefined;
  }

  /** Whether node table `nodeId` was recorded ({@link setTableInput}). */
  hasTableInput(nodeId: string): boolean {
    return this.tableInputs.has(nodeId);
  }

  /**
   * A digest of every node table recorded so far, whatever order they were recorded in (parallel branches end in any
   * order): the same tables with the same columns give the same digest. One hash over the tables' digests in the
   * order of their names: an XOR of them, kept as each was recorded, was cheaper, but a tenant could choose tables
   * whose digests cancel out (a sum over enough of them reaches zero), and then two sets of tables had one digest.
   */
  recordedInputsDigest(): Buffer {
    if (!this.inputsDigest) {
      const hash = createHash('sha256');
      for (const name of [...this.tableInputs.keys()].sort()) hash.update(this.tableInputs.get(name)!.digest);
      this.inputsDigest = hash.digest();
    }
    return Buffer.from(this.inputsDigest);
  }

  /** Every node table recorded so far ({@link setTableInput}). */
  recordedInputs(): BindInput[] {
    return [...this.tableInputs.values()].map((t) => t.input);
  }

  /** Where a node writes its CSV output: a file of the spill directory, removed with it. */
  csvPathFor(nodeId: string): string {
    const hex = Buffer.from(nodeId).toString('hex');
    // A file name holds 255 bytes: a long id (a node id may have hundreds of characters) goes by its digest.
    const name = hex.length <= 200 ? hex : `d-${createHash('sha256').update(nodeId).digest('hex')}`;
    return join(this.spillDir, `csv-${name}.csv`);
  }

  setCsvOutput(nodeId: string, output: CsvOutput): void {
    this.csvOutputs.set(nodeId, output);
  }

  csvOutput(nodeId: string): CsvOutput | undefined {
    return this.csvOutputs.get(nodeId);
  }

  /**
   * Closes every connection and removes the run's folders; the database too if it is the workspace's own. A pool's
   * database is recycled by the pool (workspace-pool.ts), after this.
   */
  async close(): Promise<void> {
    this.closed = true;
    for (const connection of this.idle.splice(0)) connection.closeSync();
    const left = [...this.connections];
    this.connections.clear();
    await Promise.all(left.map(([connection, work]) => this.closeAfter(connection, work)));
    this.releaseCollector?.();
    this.releaseCollector = undefined;
    await Promise.all([
      removeFolder(this.spillDir),
      removeFolder(this.scratchDir),
      this.ownsDatabase ? this.database.close() : undefined,
    ]);
  }

  /**
   * Closes a connection its node did not give back once the node's work has returned: closed under a statement, it
   * would block the event loop until the statement ends. Interrupted (again and again: DuckDB drops an interrupt that
   * lands before a statement starts), a statement ends at once; work still running after the grace is given up and
   * its connection stranded. A connection whose work was never told ({@link runs}) has run nothing.
   */
  private async closeAfter(connection: DuckDBConnection, work: Promise<unknown> | undefined): Promise<void> {
    if (!work) return connection.closeSync();
    const stoppable = new StoppableWork(connection, this.interrupts.graceMs);
    stoppable.stop();
    try {
      await Promise.race([work.then(settledAnyway, settledAnyway), stoppable.givenUp]);
      connection.closeSync();
    } catch {
      this.giveUp(connection, work);
    } finally {
      stoppable.end();
    }
  }
}

/**
 * Removes a folder and what it holds. A run's folders are mostly empty by now (each read removes its own files): one
 * rmdir then, where a recursive rm looks the folder up twice before removing it.
 */
async function removeFolder(dir: string): Promise<void> {
  try {
    await rmdir(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') await rm(dir, { recursive: true, force: true });
  }
}

/** What close() waits for is the work's end, not how it ended. */
function settledAnyway(): void {}
