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
    let database = this.idle.pop();
    if (!database && this.opening) {
      const opening = this.opening;
      this.opening = undefined;
      database = await opening;
    }
    database ??= await WorkspaceDatabase.open('db', this.opts.dataDir, this.opts.memory);
    try {
      return (await RunWorkspace.within(database, runId, this.opts.memory)).begin();
    } catch (err) {
      await database.close();
      throw err;
    }
  }

  release(workspace: RunWorkspace): void {
    // One turn later, once the run's final report has been written to Redis: recycling runs statements on DuckDB.
    const releasing = new Promise<void>((resolve) => setImmediate(resolve))
      .then(() => this.recycle(workspace))
      .catch((err: unknown) => this.logger.warn({ err, dir: workspace.spillDir }, 'could not release a run workspace'))
      .finally(() => this.releasing.delete(releasing));
    this.releasing.add(releasing);
  }

  private async recycle(workspace: RunWorkspace): Promise<void> {
    await workspace.close();
    const { database } = workspace;
    if (this.closed || this.idle.length >= this.maxIdle) return database.close();
    if (!(await database.recycle())) {
      this.logger.warn('a run left its database unlike a new one: closed it instead of reusing it');
      return this.warm();
    }
    if (this.closed || this.idle.length >= this.maxIdle) return database.close();
    this.idle.push(database);
  }

  /** Resolves once every release under way has ended (its database idle or closed). */
  async settled(): Promise<void> {
    await Promise.all([...this.releasing]);
  }

  /** Closes every idle database and waits for the releases still under way. */
  async close(): Promise<void> {
    this.closed = true;
    await this.settled();
    const opened = await this.opening;
    this.opening = undefined;
    await Promise.all([...this.idle.splice(0), ...(opened ? [opened] : [])].map((database) => database.close()));
  }
}
