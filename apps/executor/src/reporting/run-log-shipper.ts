/**
 * Ships one run's log lines to the `logs` queue in small batches: every 200 ms, or at once when 500 lines wait.
 * Lines are numbered from 0 within the attempt; a batch's job id names its first line, so a resend is a duplicate.
 * The executor's runs' batches leave together (GroupedAdds).
 */
import type { GroupedAdds } from '@conduit/service-kit';
import { LOG_MESSAGE_MAX_BYTES, type QUEUES, type RunLogBatch } from '@conduit/contracts';
import type { Logger } from 'pino';
import type { RunLogLevel, RunLogSink } from '../engine/run-log-sink.js';

export interface LogShipperOptions {
  flushIntervalMs?: number;
  maxBatchLines?: number;
}

type Line = RunLogBatch['lines'][number];

/** At most LOG_MESSAGE_MAX_BYTES of UTF-8, cut on a character boundary. */
export function clampMessage(message: string): string {
  if (Buffer.byteLength(message) <= LOG_MESSAGE_MAX_BYTES) return message;
  // Each character is a byte or more: the bytes kept lie within as many characters, and only those are encoded (a
  // tenant's message may be hundreds of megabytes).
  let cut = Buffer.from(message.slice(0, LOG_MESSAGE_MAX_BYTES))
    .subarray(0, LOG_MESSAGE_MAX_BYTES - 3)
    .toString();
  if (cut.endsWith('\uFFFD')) cut = cut.slice(0, -1);
  return `${cut}...`;
}

export class RunLogShipper implements RunLogSink {
  private buffer: Line[] = [];
  private next = 0;
  private timer: NodeJS.Timeout | null = null;
  private chain: Promise<void> = Promise.resolve();
  private readonly flushIntervalMs: number;
  private readonly maxBatchLines: number;

  constructor(
    private readonly queue: GroupedAdds<typeof QUEUES.logs>,
    private readonly run: Omit<RunLogBatch, 'lines'>,
    private readonly logger: Logger,
    opts: LogShipperOptions = {},
  ) {
    this.flushIntervalMs = opts.flushIntervalMs ?? 200;
    this.maxBatchLines = Math.min(opts.maxBatchLines ?? 500, 1000);
  }

  write(level: RunLogLevel, nodeId: string | null, message: string): void {
    this.buffer.push({
      n: this.next++,
      ts: new Date().toISOString(),
      level,
      node_id: nodeId,
      message: clampMessage(message),
    });
    // flush() never rejects: a batch that cannot be sent is logged there.
    if (this.buffer.length >= this.maxBatchLines) void this.flush();
    else this.timer ??= setTimeout(() => void this.flush(), this.flushIntervalMs);
  }

  /** Sends what waits; resolves once every batch so far is on the queue (or logged as lost). */
  flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.buffer.length > 0) {
      const batch: RunLogBatch = { ...this.run, lines: this.buffer };
      this.buffer = [];
      const jobId = `${batch.run_id}-${batch.attempt}-${batch.lines[0]!.n}`;
      this.chain = this.chain.then(async () => {
        try {
          await this.queue.add([{ name: 'run.logs', data: batch, opts: { jobId } }]);
        } catch (err) {
          this.logger.error({ err, run_id: batch.run_id, lines: batch.lines.length }, 'could not ship run log lines');
        }
      });
    }
    return this.chain;
  }
}
