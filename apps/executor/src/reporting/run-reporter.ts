/**
 * Sends one run's reports (run.started, run.node, run.finished) to `events.scheduler`, in order: each add waits for
 * the previous, so the scheduler sees a node's running before its succeeded. Job id = event id (deduplication).
 */
import type { Queue } from 'bullmq';
import { newId, type RunError, type RunNode, type RunReport } from '@conduit/contracts';
import type { Logger } from 'pino';
import { MESSAGE_JOB_OPTIONS } from './queue-options.js';

export interface RunIdentity {
  run_id: string;
  tenant_id: string;
  attempt: number;
  /** The epoch of this execution's claim: the scheduler refuses reports of any other. */
  epoch: number;
}

type Body =
  | { type: 'run.started'; executor_id: string }
  | { type: 'run.node'; node: RunNode }
  | {
      type: 'run.finished';
      status: 'succeeded' | 'failed' | 'canceled';
      error: RunError | null;
      stats: { rows_read: number; rows_written: number };
      nodes: RunNode[];
    };

export class RunReporter {
  private chain: Promise<void> = Promise.resolve();

  constructor(
    private readonly queue: Queue,
    private readonly run: RunIdentity,
    private readonly logger: Logger,
  ) {}

  /** Queues the report behind the earlier ones (stamped `at`, default now); a failed add is logged, never thrown. */
  send(body: Body, at = new Date()): Promise<void> {
    const report = { ...body, event_id: newId('event'), ...this.run, at: at.toISOString() } as RunReport;
    this.chain = this.chain.then(async () => {
      try {
        await this.queue.add(report.type, report, { ...MESSAGE_JOB_OPTIONS, jobId: report.event_id });
      } catch (err) {
        this.logger.error({ err, run_id: this.run.run_id, type: report.type }, 'could not send run report');
      }
    });
    return this.chain;
  }

  /** Resolves once every report sent so far is on the queue (or logged as lost). */
  flushed(): Promise<void> {
    return this.chain;
  }
}
