/**
 * Sends one run's reports (run.started, run.node, run.finished) to `events.scheduler`: one send at a time, so the
 * scheduler sees a node's running before its succeeded. Reports made while a send is on its way, or in the
 * same turn of the event loop, leave together in the next one, with those of the executor's other runs
 * (GroupedAdds: one round trip and a `batch` job for all, each run's applied in its order), so a run's bookkeeping
 * never queues up behind its nodes. Job id (a lone report's, a batch item's) = event id: the scheduler applies an
 * event id once (processed_events).
 *
 * Progress is sent only while it says something: a node's `running` report waits PROGRESS_REPORT_DELAY_MS and is
 * dropped when the node's next state comes first (a short node reports once), and node reports that leave with the
 * run's final report are dropped for the nodes it carries (it states every node). A node's success waits as long
 * only where the run may lose it (`endMayWait`): a run taken over resumes from the node states the scheduler has
 * (resume-plan.ts), so only a node that a takeover would run again anyway (engine/repeatable-nodes.ts) has its end
 * wait; the waiting ends all leave when the first is due, or with any report that does not wait and before it, or
 * as a node whose end cannot wait starts, so the scheduler never holds a node's end without the ends made before
 * it. Order holds per node: a `running` report sent after its wait goes behind reports of other nodes made meanwhile.
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

/**
 * How long a node's `running` report waits: a node that ends sooner sends its end alone. What a client sees of a
 * node's start is at most this late; ends and the run's state are not delayed.
 */
export const PROGRESS_REPORT_DELAY_MS = 100;

interface Pending {
  report: RunReport;
  /** From when it was made, not from its turn: reports queued behind one that waits out an outage share its deadline. */
  giveUpAt: number;
}

interface Held extends Pending {
  dueAt: number;
  /** A node's end (not its `running`): the ends held leave together. */
  end: boolean;
}

export interface RunReporterOptions {
  /** How long a failed send is tried again; default REPORT_RETRY_MS. */
  retryMs?: number;
  /** How long a node's `running` report (and an end that may wait) waits; default PROGRESS_REPORT_DELAY_MS. */
  progressDelayMs?: number;
  /** Whether this node's success may wait like its progress (see above); default none does. */
  endMayWait?: (node: RunNode) => boolean;
}

export class RunReporter {
  private pending: Pending[] = [];
  /**
   * Reports waiting to be sent, by node id, each until its own `dueAt` (the ends: until the first end's): a later
   * report of the node replaces its entry. In the order they were made (a Map keeps insertion order), so the earliest
   * due comes first.
   */
  private readonly held = new Map<string, Held>();
  private heldTimer: NodeJS.Timeout | undefined;
  private chain: Promise<void> = Promise.resolve();
  private sending = false;
  private readonly retryMs: number;
  private readonly progressDelayMs: number;
  private readonly endMayWait: (node: RunNode) => boolean;

  constructor(
    private readonly queue: GroupedAdds<typeof QUEUES.eventsScheduler>,
    private readonly run: RunIdentity,
    private readonly logger: Logger,
    options: RunReporterOptions = {},
  ) {
    this.retryMs = options.retryMs ?? REPORT_RETRY_MS;
    this.progressDelayMs = options.progressDelayMs ?? PROGRESS_REPORT_DELAY_MS;
    this.endMayWait = options.endMayWait ?? (() => false);
  }

  /**
   * Queues the report behind the earlier ones (stamped `at`, default now); a node's `running` report waits (see
   * above). A failed send is tried again for `retryMs`, then logged; never thrown: flushed() says when all is sent.
   */
  send(body: Body, at = new Date()): void {
    // With the context of the run's (or node's) span: the scheduler applies it in that trace (job-trace.ts).
    const report = withJobTrace<RunReport>({ ...body, event_id: newId('event'), ...this.run, at: at.toISOString() });
    const item = { report, giveUpAt: Date.now() + this.retryMs };
    if (body.type === 'run.node') {
      const { node } = body;
      this.held.delete(node.id);
      const mayWait = this.endMayWait(node);
      // A node whose end cannot wait is about to act outside the run: the ends made before it leave now.
      if (node.status === 'running' && !mayWait) this.releaseHeld(-Infinity);
      const end = node.status === 'succeeded' && mayWait;
      if (node.status === 'running' || end) {
        this.held.set(node.id, { ...item, dueAt: Date.now() + this.progressDelayMs, end });
        this.heldTimer ??= this.armHeldTimer();
        return;
      }
    }
    if (body.type === 'run.finished') {
      // The final report states every node it carries: their waiting progress says nothing more. Their waiting ends
      // leave with it, to be dropped from its batch (withoutSuperseded), or sent should the final report be refused.
      for (const node of body.nodes) if (this.held.get(node.id)?.end === false) this.held.delete(node.id);
      this.releaseHeld(Infinity);
    } else {
      // Never ahead of a node's end made before it.
      this.releaseHeld(-Infinity);
    }
    this.pending.push(item);
    this.startSending();
  }

  /** Resolves once every report made so far, waiting ones included, is on the queue (or logged as lost). */
  flushed(): Promise<void> {
    this.releaseHeld(Infinity);
    return this.chain;
  }

  /** A timer for the earliest waiting report (the map's first); undefined when none waits. */
  private armHeldTimer(): NodeJS.Timeout | undefined {
    const first = this.held.values().next();
    if (first.done) return undefined;
    const timer = setTimeout(
      () => {
        this.heldTimer = undefined;
        this.releaseHeld(Date.now());
        this.heldTimer = this.armHeldTimer();
      },
      Math.max(0, first.value.dueAt - Date.now()),
    );
    return timer.unref();
  }

  /**
   * The waiting reports due by `now`, and every waiting end once one is due (all of them at `-Infinity`), join the
   * pending ones, in the order they were made.
   */
  private releaseHeld(now: number): void {
    if (now === Infinity) {
      clearTimeout(this.heldTimer);
      this.heldTimer = undefined;
    }
    let endsDue = now === -Infinity;
    for (const item of this.held.values()) if (item.end && item.dueAt <= now) endsDue = true;
    let released = false;
    for (const [nodeId, item] of this.held) {
      if (item.dueAt > now && !(item.end && endsDue)) continue;
      this.held.delete(nodeId);
      this.pending.push({ report: item.report, giveUpAt: item.giveUpAt });
      released = true;
    }
    if (released) this.startSending();
  }

  private startSending(): void {
    if (this.sending) return;
    this.sending = true;
    this.chain = this.drain();
  }

  private async drain(): Promise<void> {
    try {
      // One turn of the event loop: a node's end and the run's, made in this one, leave together.
      await new Promise<void>((resolve) => setImmediate(resolve));
      while (this.pending.length > 0) {
        const batch = this.pending.splice(0, MAX_BATCH);
        await this.sendBatch(withoutSuperseded(batch), batch);
      }
    } finally {
      this.sending = false;
    }
  }

  /**
   * Tries the batch until its latest report's deadline, so a final report is never given up sooner than alone. A
   * report the contract refuses is permanent: the batch (none of it sent) goes one by one, and that one is dropped;
   * one by one from `whole`, the batch before superseded reports were left out (a refused final report would
   * otherwise take the node ends it stated with it).
   */
  private async sendBatch(batch: Pending[], whole: Pending[] = batch): Promise<void> {
    const giveUpAt = Math.max(...batch.map((p) => p.giveUpAt));
    const reports = batch.map((p) => p.report);
    for (let attempt = 0; ; attempt++) {
      try {
        await this.queue.add(reports.map((r) => ({ name: r.type, data: r, opts: { jobId: r.event_id } })));
        return;
      } catch (err) {
        if (err instanceof JobDataInvalidError) {
          if (whole.length > 1) {
            for (const one of whole) await this.sendBatch([one]);
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

/** The batch without the node reports that a later final report of the batch states again. */
function withoutSuperseded(batch: Pending[]): Pending[] {
  const final = batch.findLast((p) => p.report.type === 'run.finished')?.report;
  if (final?.type !== 'run.finished') return batch;
  const stated = new Set(final.nodes.map((n) => n.id));
  return batch.filter((p) => p.report.type !== 'run.node' || !stated.has(p.report.node.id));
}
