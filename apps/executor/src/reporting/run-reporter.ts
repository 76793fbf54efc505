/**
 * Sends one run's reports (run.started, run.node, run.finished) to `events.scheduler`, in order: each add waits for
 * the previous, so the scheduler sees a node's running before its succeeded. Job id = event id (deduplication).
 */
import type { QueueProducer } from '@conduit/service-kit';
import type { QUEUES, RunError, RunNode, RunReport } from '@conduit/contracts';
import { newId, withJobTrace } from '@conduit/service-kit';
import type { Logger } from 'pino';

/**
 * How long a report is tried again while Redis is away (issue 16, R2: a run that ends during a 20 s outage must not
 * lose its final report, or the reaper fails a run that succeeded). The same event id makes a repeat harmless.
 */
export const REPORT_RETRY_MS = 60_000;
const retryDelayMs = (attempt: number): number => Math.min(100 * 2 ** attempt, 1_000);

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
    private readonly queue: QueueProducer<typeof QUEUES.eventsScheduler>,
    private readonly run: RunIdentity,
    private readonly logger: Logger,
    private readonly retryMs = REPORT_RETRY_MS,
  ) {}

  /**
   * Queues the report behind the earlier ones (stamped `at`, default now). A failed add is tried again for `retryMs`,
   * then logged; never thrown.
   */
  send(body: Body, at = new Date()): Promise<void> {
    // With the context of the run's (or node's) span: the scheduler applies it in that trace (job-trace.ts).
    const report = withJobTrace<RunReport>({ ...body, event_id: newId('event'), ...this.run, at: at.toISOString() });
    // From now, not from its turn: reports queued behind one that waits out an outage share its deadline.
    const giveUpAt = Date.now() + this.retryMs;
    this.chain = this.chain.then(async () => {
      for (let attempt = 0; ; attempt++) {
        try {
          await this.queue.add(report.type, report, { jobId: report.event_id });
          return;
        } catch (err) {
          if (Date.now() >= giveUpAt) {
            this.logger.error({ err, run_id: this.run.run_id, type: report.type }, 'could not send run report');
            return;
          }
          if (attempt === 0)
            this.logger.warn(
              { err, run_id: this.run.run_id, type: report.type },
              'run report not sent yet; trying again',
            );
          await new Promise((resolve) => setTimeout(resolve, retryDelayMs(attempt)));
        }
      }
    });
    return this.chain;
  }

  /** Resolves once every report sent so far is on the queue (or logged as lost). */
  flushed(): Promise<void> {
    return this.chain;
  }
}
