/**
 * The executor's run databases (workspace-database.ts), kept from one run to the next instead of one created and
 * closed per run: a run takes an idle one (or one opened ahead at start, or a new one), and when it ends its
 * connections are closed, its folders removed and its database recycled (an empty default database, the instance
 * checked as new) before another run may take it. A database that fails the check is closed, never handed out.
 */
import type { Logger } from 'pino';
import { RunWorkspace, type WorkspaceOptions } from './run-workspace.js';
import { WorkspaceDatabase } from './workspace-database.js';

/** Where the engine takes a run's workspace from and gives it back when the run ends. */
export interface WorkspaceSource {
  take(runId: string): Promise<RunWorkspace>;
  /** Takes the workspace back at once; closing its connections, removing its folders and recycling may end later. */
  release(workspace: RunWorkspace): void;
}

export class WorkspacePool implements WorkspaceSource {
  private readonly idle: WorkspaceDatabase[] = [];
  /** The database being opened ahead (at start, or after one failed its check). */
  private opening: Promise<WorkspaceDatabase | undefined> | undefined;
  private readonly releasing = new Set<Promise<void>>();
  /** Runs waiting for the database a release under way recycles (undefined: it was closed, open another). */
  private readonly waiting: ((database: WorkspaceDatabase | undefined) => void)[] = [];
  private closed = false;

  constructor(
    private readonly opts: WorkspaceOptions,
    private readonly logger: Logger,
    /** Databases kept idle at most: the executor's concurrency (more are closed as their runs end). */
    private readonly maxIdle: number,
  ) {}

  /** Opens a database ahead, so the first run does not pay for it either. */
  warm(): void {
    if (this.closed || this.opening || this.idle.length > 0) return;
    // One that fails to open is opened again by the run that needs it, which then reports the error.
    this.opening = WorkspaceDatabase.open('db', this.opts.dataDir, this.opts.memory).catch((err: unknown) => {
      this.logger.warn({ err }, 'could not open a run database ahead; the next run opens its own');
      return undefined;
    });
  }

  async take(runId: string): Promise<RunWorkspace> {
    const database =
      (await this.reusable()) ?? (await WorkspaceDatabase.open('db', this.opts.dataDir, this.opts.memory));
    try {
      return (await RunWorkspace.within(database, runId, this.opts.memory, false, this.opts.interrupts)).begin();
    } catch (err) {
      await database.close();
      throw err;
    }
  }

  /** An idle database, the one opened ahead, or the next one a release under way recycles; undefined: none. */
  private async reusable(): Promise<WorkspaceDatabase | undefined> {
    const idle = this.idle.pop();
    if (idle) return idle;
    const opening = this.opening;
    this.opening = undefined;
    const opened = await opening;
    if (opened) return opened;
    // A run taken while the previous one's database is still being recycled (~1 ms) waits for it rather than
    // opening another (~8 ms of CPU, and one more to close when both are back).
    if (this.waiting.length < this.releasing.size) return new Promise((resolve) => this.waiting.push(resolve));
    return undefined;
  }

  release(workspace: RunWorkspace): void {
    // One turn later, once the run's final report has been written to Redis: recycling runs statements on DuckDB.
    const releasing = new Promise<void>((resolve) => setImmediate(resolve))
      .then(() => this.recycle(workspace))
      .catch((err: unknown) => {
        this.logger.warn({ err, dir: workspace.spillDir }, 'could not release a run workspace');
        return undefined;
      })
      .then((database) => this.handBack(database))
      .finally(() => this.releasing.delete(releasing));
    this.releasing.add(releasing);
  }

  /** Ends the run's use of its database; answers the database if it is fit for another run. */
  private async recycle(workspace: RunWorkspace): Promise<WorkspaceDatabase | undefined> {
    await workspace.close();
    const { database } = workspace;
    if (this.closed) {
      await database.close();
      return undefined;
    }
    if (await database.recycle(workspace.ranTenantSql ? 'whole' : 'run')) return database;
    this.logger.warn(
      { why: database.refusal },
      'a run left its database unlike a new one: closed it instead of reusing it',
    );
    return undefined;
  }

  private async handBack(database: WorkspaceDatabase | undefined): Promise<void> {
    const waiter = this.waiting.shift();
    if (waiter) return waiter(database);
    if (!database) return this.warm();
    if (this.closed || this.idle.length >= this.maxIdle) return database.close();
    this.idle.push(database);
  }

  /** Resolves once every release under way has ended (its database idle, handed on or closed). */
  async settled(): Promise<void> {
    await Promise.all([...this.releasing]);
  }

  /** Closes every idle database and waits for the releases still under way. */
  async close(): Promise<void> {
    this.closed = true;
    await this.settled();
    for (const waiter of this.waiting.splice(0)) waiter(undefined);
    const opened = await this.opening;
    this.opening = undefined;
    await Promise.all([...this.idle.splice(0), ...(opened ? [opened] : [])].map((database) => database.close()));
  }
}
