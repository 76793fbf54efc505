import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { RunNode } from '@conduit/contracts';

/** How an execution ended here: the run's own end, or a stop that leaves the run to another execution. */
export type ExecutionEnd = 'succeeded' | 'failed' | 'canceled' | 'handed_back' | 'fenced';

/** Seconds, from a sub-second transform to an hour-long copy. */
const DURATION_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800, 3600];
/** Seconds a run waited in the queue before an executor claimed it. */
const WAIT_BUCKETS = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 900];
const FINISHED_NODE = new Set(['succeeded', 'failed', 'skipped', 'canceled']);

/** An error code as a label value: codes are ours (connector and engine codes), but a label must stay bounded. */
function errorClassOf(code: string | undefined): string {
  if (code === undefined) return 'unclassified';
  return /^[a-z][a-z0-9_]{0,39}$/.test(code) ? code : 'other';
}

function secondsBetween(from: string | null, to: string | null): number | undefined {
  if (!from || !to) return undefined;
  const ms = Date.parse(to) - Date.parse(from);
  return Number.isFinite(ms) && ms >= 0 ? ms / 1000 : undefined;
}

/**
 * The executor's run and node series, on its metrics registry (its /metrics):
 * - `conduit_executor_runs_total{status}` and `conduit_executor_run_duration_seconds{status}`: executions that ended
 *   here, by how (`handed_back`: SIGTERM or a lost lock; `fenced`: the scheduler gave the run to another execution);
 * - `conduit_executor_run_failures_total{error_class}`: failed runs by their error code;
 * - `conduit_executor_node_duration_seconds{type,status}` and `conduit_executor_node_failures_total{type,error_class}`;
 * - `conduit_executor_rows_read_total`, `conduit_executor_rows_written_total`: the runs' stats as each ends here;
 * - `conduit_executor_queue_wait_seconds`: from queued to claimed, for first executions (a takeover's would count the
 *   dead executor's time);
 * - `conduit_executor_active_runs` and `conduit_executor_concurrency`: saturation is their ratio.
 */
export class RunMetrics {
  private readonly runs: Counter<'status'>;
  private readonly runDuration: Histogram<'status'>;
  private readonly runFailures: Counter<'error_class'>;
  private readonly nodeDuration: Histogram<'type' | 'status'>;
  private readonly nodeFailures: Counter<'type' | 'error_class'>;
  private readonly rowsRead: Counter;
  private readonly rowsWritten: Counter;
  private readonly queueWait: Histogram;
  private activeRuns: () => number = () => 0;

  constructor(registry: Registry, concurrency: number) {
    const registers = [registry];
    this.runs = new Counter({
      name: 'conduit_executor_runs_total',
      help: 'Run executions that ended on this executor, by how they ended',
      labelNames: ['status'],
      registers,
    });
    this.runDuration = new Histogram({
      name: 'conduit_executor_run_duration_seconds',
      help: 'Duration of run executions, from claim to end',
      labelNames: ['status'],
      buckets: DURATION_BUCKETS,
      registers,
    });
    this.runFailures = new Counter({
      name: 'conduit_executor_run_failures_total',
      help: 'Failed runs by error class (the run error code)',
      labelNames: ['error_class'],
      registers,
    });
    this.nodeDuration = new Histogram({
      name: 'conduit_executor_node_duration_seconds',
      help: 'Duration of finished nodes by node type and status',
      labelNames: ['type', 'status'],
      buckets: DURATION_BUCKETS,
      registers,
    });
    this.nodeFailures = new Counter({
      name: 'conduit_executor_node_failures_total',
      help: 'Failed nodes by node type and error class',
      labelNames: ['type', 'error_class'],
      registers,
    });
    this.rowsRead = new Counter({
      name: 'conduit_executor_rows_read_total',
      help: 'Rows the runs read from sources',
      registers,
    });
    this.rowsWritten = new Counter({
      name: 'conduit_executor_rows_written_total',
      help: 'Rows the runs wrote to sinks',
      registers,
    });
    this.queueWait = new Histogram({
      name: 'conduit_executor_queue_wait_seconds',
      help: 'Time from a run being queued to an executor claiming it (first executions)',
      buckets: WAIT_BUCKETS,
      registers,
    });
    const activeRuns = (): number => this.activeRuns();
    new Gauge({
      name: 'conduit_executor_active_runs',
      help: 'Runs executing on this executor now',
      registers,
      collect() {
        this.set(activeRuns());
      },
    });
    new Gauge({
      name: 'conduit_executor_concurrency',
      help: 'Runs this executor takes at once (EXECUTOR_CONCURRENCY)',
      registers,
    }).set(concurrency);
  }

  /** Where the active runs are counted (the run processor's own map), read at each scrape. */
  countActiveWith(activeRuns: () => number): void {
    this.activeRuns = activeRuns;
  }

  /** A claimed execution starts; `queuedAtMs` is when its queue job was added. */
  started(queuedAtMs: number, claimedAtMs: number, attempt: number): void {
    if (attempt === 1 && claimedAtMs >= queuedAtMs) this.queueWait.observe((claimedAtMs - queuedAtMs) / 1000);
  }

  /** A node report: a node that finished counts once (a node's reports reach `finished` once per execution). */
  nodeChanged(node: RunNode): void {
    if (!FINISHED_NODE.has(node.status)) return;
    const seconds = secondsBetween(node.started_at, node.finished_at);
    if (seconds !== undefined) this.nodeDuration.observe({ type: node.type, status: node.status }, seconds);
    if (node.status === 'failed')
      this.nodeFailures.inc({ type: node.type, error_class: errorClassOf(node.error?.code) });
  }

  ended(
    end: ExecutionEnd,
    seconds: number,
    errorCode: string | undefined,
    stats: { rows_read: number; rows_written: number },
  ): void {
    this.runs.inc({ status: end });
    this.runDuration.observe({ status: end }, seconds);
    if (end === 'failed') this.runFailures.inc({ error_class: errorClassOf(errorCode) });
    this.rowsRead.inc(stats.rows_read);
    this.rowsWritten.inc(stats.rows_written);
  }
}
