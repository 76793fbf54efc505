// The live view of `conduit run --follow` and `conduit logs --follow`: on a terminal, a block of the DAG's node
// states (spinner, duration, rows) redrawn under the streaming log lines; elsewhere (CI), plain lines: each log line
// and each node's change of state, in the order they happened, nothing redrawn.
import type { Run, RunLogLine, RunNode } from '@conduit/sdk';
import { oneLine, spinnerFrame, type Colour, type Output } from '../output.js';

const STATUS_COLOUR: Record<RunNode['status'], Colour> = {
  pending: 'gray',
  running: 'blue',
  succeeded: 'green',
  failed: 'red',
  skipped: 'gray',
  canceled: 'yellow',
};

export function formatDuration(ms: number): string {
  if (ms < 1000) return `${ms} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
}

export function nodeDuration(node: Pick<RunNode, 'started_at' | 'finished_at'>, now = Date.now()): number | undefined {
  if (!node.started_at) return undefined;
  return (node.finished_at ? Date.parse(node.finished_at) : now) - Date.parse(node.started_at);
}

export function formatLogLine(out: Output, line: RunLogLine): string {
  const level =
    line.level === 'error'
      ? out.paint('red', 'error')
      : line.level === 'warn'
        ? out.paint('yellow', 'warn ')
        : out.paint('gray', line.level.padEnd(5));
  const node = line.node_id ? out.paint('bold', `[${line.node_id}] `) : '';
  return `${out.paint('gray', line.ts.slice(11, 23))} ${level} ${node}${line.message}`;
}

/** Off a terminal, how many polls a node's line may wait for the log lines written before it. */
const HOLD_POLLS = 4;

/** When a node reached its state, by the API's clock (the log lines' clock too); -Infinity when not known. */
function stateTime(node: RunNode): number {
  const at = node.status === 'running' ? node.started_at : (node.finished_at ?? node.started_at);
  return at ? Date.parse(at) : -Infinity;
}

export class RunView {
  private run: Run | undefined;
  private drawnLines = 0;
  private timer: NodeJS.Timeout | undefined;
  private readonly seenStatus = new Map<string, string>();
  /**
   * Off a terminal, node lines not printed yet: the polls see a node end before the log stream has delivered its
   * lines, so each waits for a log line written after it (or a few polls, or the end) to keep the output in order.
   */
  private held: { at: number; text: string; polls: number }[] = [];

  constructor(private readonly out: Output) {}

  private get live(): boolean {
    return this.out.isTty && !this.out.json;
  }

  update(run: Run): void {
    this.run = run;
    if (this.live) {
      this.timer ??= setInterval(() => this.redraw(), 100);
      this.redraw();
      return;
    }
    for (const node of run.nodes) {
      if (this.seenStatus.get(node.id) === node.status) continue;
      this.seenStatus.set(node.id, node.status);
      if (node.status !== 'pending')
        this.held.push({ at: stateTime(node), text: `node ${node.id}: ${this.describeNode(node)}`, polls: 0 });
    }
    this.release((h) => ++h.polls > HOLD_POLLS);
  }

  log(line: RunLogLine): void {
    this.clear();
    const at = Date.parse(line.ts);
    this.release((h) => h.at <= at);
    this.out.line(formatLogLine(this.out, line));
    if (this.live) this.draw();
  }

  /** Prints the held node lines that are due, in the order they happened. */
  private release(due: (held: { at: number; polls: number }) => boolean): void {
    const ready = this.held.filter(due);
    if (ready.length === 0) return;
    this.held = this.held.filter((h) => !ready.includes(h));
    ready.sort((a, b) => a.at - b.at).forEach((h) => this.out.line(h.text));
  }

  /** Stops redrawing, the run not over (the CLI gave up waiting): what is held is printed. */
  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    this.release(() => true);
  }

  /** Stops redrawing and leaves the final block (or, off a terminal, a summary line). */
  finish(run: Run): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    this.run = run;
    this.clear();
    if (this.live) this.draw();
    else this.update(run);
    this.release(() => true);
    const colour = run.status === 'succeeded' ? 'green' : run.status === 'canceled' ? 'yellow' : 'red';
    const took = run.duration_ms !== null ? ` in ${formatDuration(run.duration_ms)}` : '';
    this.out.line(
      `${this.out.paint(colour, `run ${run.id} ${run.status}`)}${took}: ${run.stats.rows_read} rows read, ${run.stats.rows_written} written`,
    );
    if (run.error) this.out.line(this.out.paint('red', `  ${run.error.code}: ${run.error.message}`));
    this.drawnLines = 0;
  }

  private describeNode(node: RunNode): string {
    const took = nodeDuration(node);
    const parts: string[] = [node.status];
    if (took !== undefined) parts.push(formatDuration(took));
    if (node.status !== 'pending' && node.status !== 'skipped')
      parts.push(`rows ${node.rows_in} in, ${node.rows_out} out`);
    if (node.error) parts.push(`${node.error.code}: ${node.error.message}`);
    return parts.join(', ');
  }

  private redraw(): void {
    this.clear();
    this.draw();
  }

  private clear(): void {
    if (!this.live || this.drawnLines === 0) return;
    // Up to the block's first line, then erase to the end of the screen.
    this.out.stdout.write(`\u001b[${this.drawnLines}F\u001b[J`);
    this.drawnLines = 0;
  }

  private draw(): void {
    const run = this.run;
    if (!run) return;
    const width = Math.max(4, ...run.nodes.map((n) => oneLine(n.id).length));
    const lines = [this.out.paint('bold', oneLine(`run ${run.id}  ${run.status}`))];
    for (const node of run.nodes) {
      const icon =
        node.status === 'running'
          ? spinnerFrame()
          : node.status === 'succeeded'
            ? '✔'
            : node.status === 'failed'
              ? '✖'
              : node.status === 'pending'
                ? '·'
                : '-';
      const took = nodeDuration(node);
      lines.push(
        `  ${this.out.paint(STATUS_COLOUR[node.status], `${icon} ${oneLine(node.id).padEnd(width)}  ${node.status.padEnd(9)}`)}  ${(took !== undefined ? formatDuration(took) : '').padEnd(10)}  rows ${node.rows_in} → ${node.rows_out}`,
      );
    }
    this.out.stdout.write(`${lines.join('\n')}\n`);
    this.drawnLines = lines.length;
  }
}
