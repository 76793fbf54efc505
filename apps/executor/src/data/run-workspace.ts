/**
 * One DuckDB database per run: in memory, with the run's memory limit (run-memory.ts) and a spill directory of its
 * own, so a large input pages to disk instead of exhausting the executor. Every node table lives here under its node
 * id. Tenants' SQL runs here, so the instance is sandboxed at creation (no file access, no extensions, configuration
 * locked): the platform's memory_limit, threads and temp_directory are set first and no statement can change them.
 */
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import duckdb from '@duckdb/node-api';
import { lockDown, preparableConfig, type TransferBuffers } from '@conduit/connectors';
import type { DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import { holdChunkCollector } from './chunk-collector.js';
import type { RunMemory } from './run-memory.js';

export interface WorkspaceOptions {
  /** Parent of the per-run spill directories. */
  dataDir: string;
  /** The run's memory: DuckDB's memory_limit and threads, and what bulk transfers may buffer. */
  memory: RunMemory;
}

/** A node's output kept as a COPY CSV file (see engine/nodes/csv-handoff.ts) rather than a DuckDB table. */
export interface CsvOutput {
  path: string;
  columns: readonly string[];
  rows: number;
}

export class RunWorkspace {
  private readonly connections = new Set<DuckDBConnection>();
  private readonly csvOutputs = new Map<string, CsvOutput>();
  /** The run's streams' finished chunks are freed while it is open (chunk-collector.ts); none while a spare. */
  private releaseCollector: (() => void) | undefined;

  private constructor(
    private readonly instance: DuckDBInstance,
    readonly spillDir: string,
    /** The one folder DuckDB may read and write files in (typed bulk reads and writes); inside the spill folder. */
    readonly scratchDir: string,
    /** What a typed read or write of this run may buffer (handed to the drivers with each table). */
    readonly buffers: TransferBuffers,
  ) {}

  static async open(runId: string, opts: WorkspaceOptions): Promise<RunWorkspace> {
    return (await RunWorkspace.prepare(runId, opts)).begin();
  }

  /**
   * A workspace not yet any run's (workspace-spares.ts opens one ahead of the next run): a fresh, locked database and
   * an empty spill folder named after `name`. {@link begin} hands it to its run.
   */
  static async prepare(name: string, opts: WorkspaceOptions): Promise<RunWorkspace> {
    const spillDir = join(opts.dataDir, `${name.replace(/[^\w-]/g, '_')}-${randomUUID().slice(0, 8)}`);
    await mkdir(spillDir, { recursive: true });
    const { memory } = opts;
    // preserve_insertion_order stays on (DuckDB's default): a transform's ORDER BY must reach a sink's file and decide
    // which row of a key an upsert keeps; turning it off would let DuckDB reorder any scan.
    const config: Record<string, string> = { ...memory.duckdb, temp_directory: spillDir };
    const scratchDir = join(spillDir, 'scratch');
    await mkdir(scratchDir);
    try {
      const instance = await duckdb.DuckDBInstance.create(':memory:', preparableConfig(config));
      // Before any connection is handed out: typed reads and writes move data through files of the scratch folder
      // (DuckDB's own CSV reader and writer), and nothing else on the machine.
      const first = await instance.connect();
      try {
        await lockDown(first, [], [scratchDir]);
      } catch (err) {
        instance.closeSync();
        throw err;
      } finally {
        first.closeSync();
      }
      return new RunWorkspace(instance, spillDir, scratchDir, memory.buffers);
    } catch (err) {
      await rm(spillDir, { recursive: true, force: true });
      throw err;
    }
  }

  /** Starts the run's use of the workspace. */
  begin(): this {
    this.releaseCollector ??= holdChunkCollector();
    return this;
  }

  /** A connection of its own for one node: nodes run in parallel and each can be interrupted alone. */
  async connect(): Promise<DuckDBConnection> {
    const connection = await this.instance.connect();
    this.connections.add(connection);
    return connection;
  }

  release(connection: DuckDBConnection): void {
    if (this.connections.delete(connection)) connection.closeSync();
  }

  /** Where a node writes its CSV output: a file of the spill directory, removed with it. */
  csvPathFor(nodeId: string): string {
    return join(this.spillDir, `csv-${Buffer.from(nodeId).toString('hex')}.csv`);
  }

  setCsvOutput(nodeId: string, output: CsvOutput): void {
    this.csvOutputs.set(nodeId, output);
  }

  csvOutput(nodeId: string): CsvOutput | undefined {
    return this.csvOutputs.get(nodeId);
  }

  /** Closes every connection and the database, and removes the spill files. */
  async close(): Promise<void> {
    for (const connection of this.connections) {
      try {
        connection.closeSync();
      } catch {
        // Already closed.
      }
    }
    this.connections.clear();
    this.releaseCollector?.();
    this.instance.closeSync();
    await rm(this.spillDir, { recursive: true, force: true });
  }
}
