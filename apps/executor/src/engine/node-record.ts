/** One node's state in a run (api.md Run.nodes), changed only through these transitions. */
import type { NodeStatus, RunError, RunNode, RunNodeColumn } from '@conduit/contracts';
import { reportedError, reportedOutput } from './reported-text.js';

const nowIso = (): string => new Date().toISOString();

export class NodeRecord {
  private status: NodeStatus = 'pending';
  private startedAt: string | null = null;
  private finishedAt: string | null = null;
  private attempts = 0;
  private rowsIn = 0;
  private rowsOut = 0;
  private output: Record<string, unknown> | null = null;
  private error: RunError | null = null;
  private columns: RunNodeColumn[] | null = null;

  /** `attempts`: those recorded by earlier executions of the run (a takeover counts on from them). */
  constructor(
    readonly id: string,
    readonly type: string,
    attempts = 0,
  ) {
    this.attempts = attempts;
  }

  /** A node as an earlier execution of the run recorded it (a takeover keeps a succeeded node as it was). */
  static restored(node: RunNode): NodeRecord {
    const record = new NodeRecord(node.id, node.type, node.attempts);
    record.status = node.status;
    record.startedAt = node.started_at;
    record.finishedAt = node.finished_at;
    record.rowsIn = node.rows_in;
    record.rowsOut = node.rows_out;
    record.output = node.output;
    record.error = node.error;
    record.columns = node.columns ?? null;
    return record;
  }

  get state(): NodeStatus {
    return this.status;
  }

  get isSettled(): boolean {
    return this.status !== 'pending' && this.status !== 'running';
  }

  /** Each attempt: running, with the attempt counted (started_at is the first attempt's). */
  attemptStarted(): void {
    this.status = 'running';
    this.startedAt ??= nowIso();
    this.attempts++;
  }

  succeeded(result: {
    rows_in: number;
    rows_out: number;
    output: Record<string, unknown> | null;
    columns?: { columns: RunNodeColumn[] };
  }): void {
    this.rowsIn = result.rows_in;
    this.rowsOut = result.rows_out;
    this.output = result.output === null ? null : reportedOutput(result.output);
    this.columns = result.columns?.columns ?? null;
    this.finish('succeeded');
  }

  failed(message: string, code?: string): void {
    this.error = reportedError(message, code === undefined ? {} : { code });
    this.finish('failed');
  }

  skipped(reason: string): void {
    this.output = reportedOutput({ reason });
    this.finish('skipped');
  }

  canceled(): void {
    this.finish('canceled');
  }

  private finish(status: NodeStatus): void {
    this.status = status;
    this.finishedAt = nowIso();
  }

  toJSON(): RunNode {
    return {
      id: this.id,
      type: this.type,
      status: this.status,
      started_at: this.startedAt,
      finished_at: this.finishedAt,
      attempts: this.attempts,
      rows_in: this.rowsIn,
      rows_out: this.rowsOut,
      output: this.output,
      error: this.error,
      columns: this.columns,
    };
  }
}
