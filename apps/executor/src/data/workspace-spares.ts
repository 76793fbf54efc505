/**
 * Opening a run's DuckDB (create, then lock down) costs 10-25 ms of the run's critical path on this machine, and
 * removing its spill folder a few more: this keeps one workspace opened ahead of the next run and removes the folders
 * of ended runs in the background. Every run still gets a database of its own, created and locked before any SQL runs
 * on it (run-workspace.ts): a spare is never handed out twice and never reused after a run.
 */
import type { Logger } from 'pino';
import { RunWorkspace, type WorkspaceOptions } from './run-workspace.js';

/** Where the engine takes a run's workspace from and gives it back when the run ends. */
export interface WorkspaceSource {
  take(runId: string): Promise<RunWorkspace>;
  /** Closes the workspace's database at once; what is left (removing its files) may finish later. */
  release(workspace: RunWorkspace): void;
}

export class WorkspaceSpares implements WorkspaceSource {
  private spare: Promise<RunWorkspace | undefined> | undefined;
  private readonly closing = new Set<Promise<void>>();
  private closed = false;

  constructor(
    private readonly opts: WorkspaceOptions,
    private readonly logger: Logger,
  ) {}

  /** Opens the spare now (at start), so the first run does not pay for it either. */
  warm(): void {
    if (this.closed || this.spare) return;
    // A spare that fails to open is opened again by the run that needs it, which then reports the error.
    this.spare = RunWorkspace.prepare('spare', this.opts).catch((err: unknown) => {
      this.logger.warn({ err }, 'could not open a spare run workspace; the next run opens its own');
      return undefined;
    });
  }

  async take(runId: string): Promise<RunWorkspace> {
    const ready = this.spare;
    this.spare = undefined;
    const workspace = (await ready) ?? (await RunWorkspace.prepare(runId, this.opts));
    this.warm();
    return workspace.begin();
  }

  release(workspace: RunWorkspace): void {
    // Closing a run's DuckDB blocks the event loop (1-4 ms measured, DuckDB has no async close): one turn later, once
    // the run's final report has been written to Redis, rather than before. Its memory is free a turn later, no more.
    const closing = new Promise<void>((resolve) => setImmediate(resolve))
      .then(() => workspace.close())
      .catch((err: unknown) => this.logger.warn({ err, dir: workspace.spillDir }, 'could not remove a run workspace'))
      .finally(() => this.closing.delete(closing));
    this.closing.add(closing);
  }

  /** Closes the spare and waits for every release still removing files. */
  async close(): Promise<void> {
    this.closed = true;
    const spare = await this.spare;
    this.spare = undefined;
    if (spare) this.release(spare);
    await Promise.all([...this.closing]);
  }
}
