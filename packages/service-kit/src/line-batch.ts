import type { DestinationStream } from 'pino';

/** What LineBatch writes through: pino's sonic-boom destination, without a minLength of its own. */
export interface LineSink {
  write(text: string): unknown;
  flush(cb?: (err?: Error) => void): void;
  flushSync(): void;
}

/**
 * A pino destination that gathers lines until about `threshold` characters and hands them to the sink as one string.
 * sonic-boom's own buffering (`minLength`) measures the UTF-8 length of everything it holds on every line (a
 * Buffer.byteLength of the grown string), which was most of what writing a gateway access line cost; here a line
 * costs an array push.
 */
export class LineBatch implements DestinationStream {
  private lines: string[] = [];
  private chars = 0;

  constructor(
    private readonly sink: LineSink,
    private readonly threshold: number,
  ) {}

  write(line: string): void {
    this.lines.push(line);
    this.chars += line.length;
    if (this.chars >= this.threshold) this.writeOut();
  }

  /** Writes the gathered lines now; `cb` (pino's `logger.flush`) once the sink has them. */
  flush(cb?: (err?: Error) => void): void {
    this.writeOut();
    if (cb) this.sink.flush(cb);
  }

  /** pino calls this after a `fatal` line, and the exit hook does: everything written before it returns. */
  flushSync(): void {
    this.writeOut();
    this.sink.flushSync();
  }

  private writeOut(): void {
    if (this.lines.length === 0) return;
    const text = this.lines.join('');
    this.lines = [];
    this.chars = 0;
    this.sink.write(text);
  }
}
