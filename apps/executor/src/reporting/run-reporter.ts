/**
 * Sends one run's reports (run.started, run.node, run.finished) to `events.scheduler`, in order: one send at a time,
 * so the scheduler sees a node's running before its succeeded. Reports made while a send is on its way leave together
 * in the next one, with those of the executor's other runs (GroupedAdds: one round trip and a `batch` job for all,
 * each run's applied in its order), so a run's bookkeeping never queues up behind its nodes. Job id (a lone report's,
 * a batch item's) = event id: the scheduler applies an event id once (processed_events).
 */
import type { GroupedAdds } from '@conduit/service-kit';
import type { QUEUES, RunError, RunNode, RunReport } from '@conduit/contracts';
import { JobDataInvalidError, newId, withJobTrace } from '@conduit/service-kit';
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

/** Most reports in one send. */
const MAX_BATCH = 100;

interface Pending {
  report: RunReport;
  /** From when it was made, not from its turn: reports queued behind one that waits out an outage share its deadline. */
  giveUpAt: number;
}

export class RunReporter {
  private pending: Pending[] = [];
  private chain: Promise<void> = Promise.resolve();
  private sending = false;

  constructor(
    private readonly queue: GroupedAdds<typeof QUEUES.eventsScheduler>,
    private readonly run: RunIdentity,
    private readonly logger: Logger,
    private readonly retryMs = REPORT_RETRY_MS,
  ) {}

  /**
   * Queues the report behind the earlier ones (stamped `at`, default now). A failed send is tried again for `retryMs`,
   * then logged; never thrown. Resolves once this report and every earlier one is on the queue (or logged as lost).
   */
  send(body: Body, at = new Date()): Promise<void> {
    // With the context of the run's (or node's) span: the scheduler applies it in that trace (job-trace.ts).
    const report = withJobTrace<RunReport>({ ...body, event_id: newId('event'), ...this.run, at: at.toISOString() });
    this.pending.push({ report, giveUpAt: Date.now() + this.retryMs });
    if (!this.sending) {
      this.sending = true;
      this.chain = this.drain();
    }
    return this.chain;
  }

  /** Resolves once every report sent so far is on the queue (or logged as lost). */
  flushed(): Promise<void> {
    return this.chain;
  }

  private async drain(): Promise<void> {
    try {
      while (this.pending.length > 0) {
        const batch = this.pending.splice(0, MAX_BATCH);
        await this.sendBatch(batch);
      }
    } finally {
      this.sending = false;
    }
  }

  /**
   * Tries the batch until its newest report's deadline, so a final report is never given up sooner than alone. A
   * report the contract refuses is permanent: the batch (none of it sent) goes one by one, and that one is dropped.
   */
  private async sendBatch(batch: Pending[]): Promise<void> {
    const giveUpAt = batch.at(-1)!.giveUpAt;
    const reports = batch.map((p) => p.report);
    for (let attempt = 0; ; attempt++) {
      try {
        await this.queue.add(reports.map((r) => ({ name: r.type, data: r, opts: { jobId: r.event_id } })));
        return;
      } catch (err) {
        if (err instanceof JobDataInvalidError) {
          if (batch.length > 1) {
            for (const one of batch) await this.sendBatch([one]);
          } else {
            // Without the data: it is what was too large or malformed, and may hold a tenant's values.
            const { type, event_id } = reports[0]!;
            this.logger.error({ err, run_id: this.run.run_id, type, event_id }, 'run report refused by its schema');
          }
          return;
        }
        const types = reports.map((r) => r.type).join(',');
        if (Date.now() >= giveUpAt) {
          this.logger.error({ err, run_id: this.run.run_id, type: types }, 'could not send run report');
          return;
        }
        if (attempt === 0)
          this.logger.warn({ err, run_id: this.run.run_id, type: types }, 'run report not sent yet; trying again');
        await new Promise((resolve) => setTimeout(resolve, retryDelayMs(attempt)));
      }
    }
  }
}
