/**
 * Executes a run's DAG by readiness: a node starts once every input has settled, up to `maxParallelNodes` at once.
 * A failed node fails the run while independent branches finish; nodes below a failed node, on a branch a
 * decision did not choose, or fed only by skipped nodes are `skipped`. An abort of `signal` stops the drivers and
 * marks running and pending nodes `canceled`.
 */
import { isDeepStrictEqual } from 'node:util';
import {
  connectorEnvironment,
  getDriver,
  scrubbedValue,
  secretScrubber,
  type ConnectorDriver,
  type ConnectorPools,
  type PoolScope,
} from '@conduit/connectors';
import { READS_INPUTS, type DagNode } from '@conduit/dag';
import {
  CONNECTOR_SECRET_FIELDS,
  type KnownConnectorType,
  type ResolvedConnector,
  type RunError,
  type RunNode,
} from '@conduit/contracts';
import { RunWorkspace, type WorkspaceOptions } from '../data/run-workspace.js';
import type { WorkspaceSource } from '../data/workspace-pool.js';
import { inNodeSpan } from './node-span.js';
import { DEFAULT_SINK_BATCH_ROWS } from '../data/table-reader.js';
import { RunAborted, policyOf, runAttempts } from './attempts.js';
import type { CsvHandoff, NodeContext, NodeResult } from './node-context.js';
import { NodeFailure, messageOf, toNodeFailure } from './node-failure.js';
import { NodeRecord } from './node-record.js';
import { reportedError } from './reported-text.js';
import { NODE_RUNNERS } from './nodes/index.js';
import type { RunLogSink } from './run-log-sink.js';
import { planRun, type PlanNode, type RunPlan } from './run-plan.js';
import { connectorFor, llmConnectorFor } from './connector-access.js';
import { csvHandoffSink } from './nodes/csv-handoff.js';
import { sinkRequestOf } from './nodes/sink-request.js';
import { planResume, type ResumePlan } from './resume-plan.js';
import { tableInputs } from './table-inputs.js';
import type { ServerPaths } from './server-paths.js';
import { rebuildDecision } from './nodes/decision-rebuild.js';

export interface RunEngineOptions {
  runId: string;
  /** The run's tenant, passed to every driver call (file-based connectors need it). */
  tenantId: string;
  /** The DAG snapshot of the run command. */
  dag: Record<string, unknown>;
  /** The run's parameters; default none. */
  parameters?: Record<string, unknown>;
  /** Connectors the DAG uses, by id, with their configs in clear. */
  connectors: ReadonlyMap<string, ResolvedConnector>;
  workspace: WorkspaceOptions;
  /** Where the run's workspace comes from (the executor's spares); default one opened here and closed at the end. */
  workspaces?: WorkspaceSource | undefined;
  signal: AbortSignal;
  log: RunLogSink;
  /** Called after every node state change, with the node's new state. */
  onNodeChange?: (node: RunNode) => void;
  /** Nodes running at once. Default 4. */
  maxParallelNodes?: number;
  /** First retry waits this long, doubling each time. Default 200. */
  retryBackoffMs?: number;
  /** Rows per batch a sink hands its driver. Default 5000. */
  sinkBatchRows?: number;
  /** The executor's database connection pools, shared by its runs; default none (every node connects anew). */
  pools?: ConnectorPools | undefined;
  /** Driver lookup; default the registry of @conduit/connectors. */
  drivers?: (type: string) => ConnectorDriver | undefined;
  /** Node states recorded by earlier executions of this run (a takeover): see resume-plan.ts. Default none. */
  recorded?: readonly RunNode[];
  /**
   * Server folders node errors and retry lines never show (server-paths.ts). Default the connector data root
   * (CONNECTOR_DATA_ROOT) and `workspace.dataDir`, which holds every folder of the run; the run's tenant id is added.
   */
  serverPaths?: Omit<ServerPaths, 'tenantId'>;
}

export type RunOutcomeStatus = 'succeeded' | 'failed' | 'canceled';

export interface RunOutcome {
  status: RunOutcomeStatus;
  error: RunError | null;
  nodes: RunNode[];
  stats: { rows_read: number; rows_written: number };
}

export async function executeRun(opts: RunEngineOptions): Promise<RunOutcome> {
  let plan: RunPlan;
  try {
    plan = planRun(opts.dag);
  } catch (err) {
    const message = messageOf(err);
    opts.log.write('error', null, message);
    return {
      status: 'failed',
      error: reportedError(message, { code: 'invalid_dag' }),
      nodes: [],
      stats: { rows_read: 0, rows_written: 0 },
    };
  }
  const source = opts.workspaces;
  const workspace = source ? await source.take(opts.runId) : await RunWorkspace.open(opts.runId, opts.workspace);
  try {
    return await new RunExecution(plan, workspace, opts).run();
  } finally {
    if (source) source.release(workspace);
    else await workspace.close();
  }
}

class RunExecution {
  private readonly records = new Map<string, NodeRecord>();
  private readonly choices = new Map<string, string>();
  private readonly running = new Map<string, Promise<void>>();
  private firstError: RunError | null = null;
  private readonly maxParallel: number;
  private readonly resume: ResumePlan;
  private readonly hidden: ServerPaths;
  /** Every secret of the run's connectors out of a text: any node's server or library may echo any of them. */
  private readonly scrub: (text: string) => string;

  constructor(
    private readonly plan: RunPlan,
    private readonly workspace: RunWorkspace,
    private readonly opts: RunEngineOptions,
  ) {
    this.resume = planResume(plan, opts.recorded ?? []);
    for (const { node } of plan.nodes) {
      const kept = this.resume.kept.get(node.id);
      this.records.set(
        node.id,
        kept ? NodeRecord.restored(kept) : new NodeRecord(node.id, node.type, this.resume.attempts.get(node.id) ?? 0),
      );
    }
    for (const [id, choice] of this.resume.choices) this.choices.set(id, choice);
    this.maxParallel = Math.max(1, opts.maxParallelNodes ?? 4);
    const paths = opts.serverPaths ?? { dataRoot: connectorEnvironment().dataRoot, dataDir: opts.workspace.dataDir };
    this.hidden = { ...paths, tenantId: opts.tenantId };
    this.scrub = secretScrubber(runSecrets(opts.connectors));
  }

  async run(): Promise<RunOutcome> {
    const { signal } = this.opts;
    const { kept, rebuilt } = this.resume;
    if (kept.size > 0 || rebuilt.size > 0) {
      const ids = (m: ReadonlyMap<string, unknown>) => [...m.keys()].map((id) => `"${id}"`).join(', ') || 'none';
      this.opts.log.write(
        'info',
        null,
        `resuming a run taken over: succeeded before and not run again: ${ids(kept)}; run again to rebuild their output: ${ids(rebuilt)}`,
      );
    }
    for (;;) {
      if (!signal.aborted) this.startReadyNodes();
      if (this.running.size === 0) break;
      await Promise.race(this.running.values());
    }
    if (signal.aborted) {
      for (const record of this.records.values()) if (!record.isSettled) this.change(record, () => record.canceled());
    }
    const nodes = [...this.records.values()].map((r) => r.toJSON());
    const status = signal.aborted ? 'canceled' : this.firstError ? 'failed' : 'succeeded';
    return { status, error: status === 'canceled' ? null : this.firstError, nodes, stats: statsOf(this.plan, nodes) };
  }

  /** Settles every node whose inputs have all settled: skips it or starts it (within the parallelism bound). */
  private startReadyNodes(): void {
    let progressed = true;
    while (progressed) {
      progressed = false;
      for (const planNode of this.plan.nodes) {
        const record = this.records.get(planNode.node.id)!;
        if (record.state !== 'pending' || this.running.has(record.id)) continue;
        const verdict = this.readiness(planNode);
        if (verdict.kind === 'wait') continue;
        if (verdict.kind === 'skip') {
          this.change(record, () => record.skipped(verdict.reason));
          this.opts.log.write('info', record.id, `skipped: ${verdict.reason}`);
          progressed = true;
        } else if (this.running.size < this.maxParallel) {
          this.start(planNode, record, verdict.inputs);
        }
      }
    }
  }

  private readiness(
    planNode: PlanNode,
  ): { kind: 'wait' } | { kind: 'skip'; reason: string } | { kind: 'run'; inputs: string[] } {
    const live: string[] = [];
    for (const edge of planNode.inputs) {
      const from = this.records.get(edge.from)!;
      if (!from.isSettled) return { kind: 'wait' };
    }
    for (const edge of planNode.inputs) {
      const from = this.records.get(edge.from)!;
      if (from.state === 'failed' || from.state === 'canceled')
        return { kind: 'skip', reason: `input "${from.id}" ${from.state}` };
      if (from.state !== 'succeeded') continue;
      const choice = this.choices.get(edge.from);
      if (edge.when !== undefined && choice !== undefined && choice !== edge.when) continue;
      if (!live.includes(edge.from)) live.push(edge.from);
    }
    if (planNode.inputs.length > 0 && live.length === 0) return { kind: 'skip', reason: 'no input was chosen or ran' };
    if (!READS_INPUTS.has(planNode.node.type)) return { kind: 'run', inputs: live };
    // What the node reads: an edge from a sql node or a sink only orders it (table-inputs.ts). With every table input
    // on a branch its decision did not choose, only such nodes ran above it: it has nothing to read.
    const inputs = tableInputs(this.plan, live);
    const above = planNode.inputs.map((e) => e.from);
    if (inputs.length > 0 || tableInputs(this.plan, above).length === 0) return { kind: 'run', inputs };
    return { kind: 'skip', reason: 'no input that leaves a table was chosen or ran' };
  }

  private start(planNode: PlanNode, record: NodeRecord, inputs: string[]): void {
    const task = inNodeSpan(planNode.node, record, () => this.execute(planNode, record, inputs)).finally(() =>
      this.running.delete(record.id),
    );
    this.running.set(record.id, task);
  }

  private async execute(planNode: PlanNode, record: NodeRecord, inputs: string[]): Promise<void> {
    const { node } = planNode;
    const { log, signal } = this.opts;
    const startedMs = Date.now();
    const rebuilt = this.resume.rebuilt.get(node.id);
    const choice = this.resume.choices.get(node.id);
    const runner =
      rebuilt && choice !== undefined
        ? (ctx: NodeContext) => rebuildDecision(ctx, rebuilt, choice)
        : NODE_RUNNERS[node.type];
    try {
      if (!runner) throw new NodeFailure(`unknown node type "${node.type}"`, false);
      const policy = policyOf(node.config, this.opts.retryBackoffMs ?? 200);
      const result: NodeResult = await runAttempts(
        policy,
        signal,
        {
          onAttempt: (attempt) => {
            this.change(record, () => record.attemptStarted());
            log.write('info', node.id, `${node.type} started${attempt > 1 ? ` (attempt ${attempt})` : ''}`);
          },
          onRetry: (attempt, failure, delayMs) =>
            log.write(
              'warn',
              node.id,
              `attempt ${attempt} failed: ${this.reportedFailure(failure).message}; retrying in ${delayMs} ms`,
            ),
        },
        (attemptSignal) => runner(this.context(planNode, inputs, attemptSignal)),
      );
      if (result.choice !== undefined) this.choices.set(node.id, result.choice);
      this.change(record, () => record.succeeded(this.shownResult(result)));
      log.write(
        'info',
        node.id,
        `succeeded in ${Date.now() - startedMs} ms: rows_in=${result.rows_in} rows_out=${result.rows_out}`,
      );
      const listed = result.columns?.columns.length ?? 0;
      if (result.columns && result.columns.total > listed)
        log.write('info', node.id, `${result.columns.total} output columns; the run status shows the first ${listed}`);
    } catch (err) {
      if (err instanceof RunAborted) {
        this.change(record, () => record.canceled());
        log.write('warn', node.id, 'canceled');
        return;
      }
      const failure = this.reportedFailure(err);
      this.change(record, () => record.failed(failure.message, failure.code));
      log.write('error', node.id, `failed: ${failure.message}`);
      this.firstError ??= reportedError(`node "${node.id}" failed: ${failure.message}`, {
        node_id: node.id,
        ...(failure.code === undefined ? {} : { code: failure.code }),
      });
    }
  }

  /**
   * A node's result as recorded and shown: what a server answered may echo a secret of the run's (an LLM's reason, a
   * column named after a header), so every string of the output but a decision's `choice` (a label of the DAG, which a
   * takeover reads back) is scrubbed, and so are columns (names and types). A column the scrub changed is recorded
   * without a type: it is not the real column, so validation never binds SQL against it.
   */
  private shownResult(result: NodeResult): NodeResult {
    const { output, columns } = result;
    const shown: NodeResult = { ...result };
    if (output !== null) {
      const { choice, ...rest } = output;
      shown.output = { ...scrubbedValue(rest, this.scrub), ...(choice === undefined ? {} : { choice }) };
    }
    if (columns) {
      shown.columns = {
        ...columns,
        columns: columns.columns.map((column) => {
          const scrubbed = scrubbedValue(column, this.scrub);
          // A STRUCT's type names its fields: a key that echoed a header shows there too.
          return isDeepStrictEqual(scrubbed, column) ? column : { ...scrubbed, type: null };
        }),
      };
    }
    return shown;
  }

  /**
   * A node's failure as reported (its error, its log lines): without the server's paths, and without the run's
   * connectors' secrets, which a server may echo back from the tenant's own SQL or data (`select 'the password'::int`).
   */
  private reportedFailure(err: unknown): NodeFailure {
    const failure = toNodeFailure(err, this.hidden);
    const message = this.scrub(failure.message);
    return message === failure.message ? failure : new NodeFailure(message, failure.retryable, failure.code);
  }

  private context(planNode: PlanNode, inputs: string[], signal: AbortSignal): NodeContext {
    const { node } = planNode;
    return {
      node,
      tenantId: this.opts.tenantId,
      pool: poolScopeOf(node, this.opts.pools),
      inputs,
      workspace: this.workspace,
      signal,
      connector: (role) => connectorFor(node, role, this.opts.connectors, this.opts.drivers ?? getDriver),
      llmConnector: () => llmConnectorFor(node, this.opts.connectors, this.opts.drivers ?? getDriver),
      parameters: this.opts.parameters ?? {},
      log: (level, message) => this.opts.log.write(level, node.id, this.scrub(message)),
      sinkBatchRows: this.opts.sinkBatchRows ?? DEFAULT_SINK_BATCH_ROWS,
      csvHandoff: this.csvHandoffOf(planNode, signal),
    };
  }

  /** A source's CSV hand-off to its sink, when the plan allows one; the sink's target is asked when the source starts. */
  private csvHandoffOf(planNode: PlanNode, signal: AbortSignal): CsvHandoff | undefined {
    const lookup = (p: PlanNode, role: 'read' | 'write') =>
      connectorFor(p.node, role, this.opts.connectors, this.opts.drivers ?? getDriver);
    const sink = csvHandoffSink(this.plan, planNode, lookup);
    if (!sink) return undefined;
    return {
      sinkId: sink.node.id,
      ready: async () => {
        const { connector, driver } = lookup(sink, 'write');
        const request = sinkRequestOf({
          node: sink.node,
          signal,
          tenantId: this.opts.tenantId,
          pool: poolScopeOf(sink.node, this.opts.pools),
          workspace: this.workspace,
        });
        return (await driver.csvTargetReady?.(connector.config, request)) ?? false;
      },
    };
  }

  private change(record: NodeRecord, transition: () => void): void {
    transition();
    this.opts.onNodeChange?.(record.toJSON());
  }
}

/** The pools a node's connector takes its connections from, when the executor has pools and the node a connector. */
function poolScopeOf(node: DagNode, pools: ConnectorPools | undefined): PoolScope | undefined {
  const connectorId = node.config['connector_id'];
  return pools && typeof connectorId === 'string' ? { pools, connectorId } : undefined;
}

function statsOf(plan: RunPlan, nodes: RunNode[]): { rows_read: number; rows_written: number } {
  let rowsRead = 0;
  let rowsWritten = 0;
  for (const node of nodes) {
    if (node.status !== 'succeeded') continue;
    const type = plan.byId.get(node.id)?.node.type;
    if (type === 'source') rowsRead += node.rows_out;
    if (type === 'sink') rowsWritten += node.rows_out;
  }
  return { rows_read: rowsRead, rows_written: rowsWritten };
}

/** The values of every secret field of the run's connectors. */
function runSecrets(connectors: ReadonlyMap<string, ResolvedConnector>): string[] {
  return [...connectors.values()].flatMap((connector) => {
    const fields: readonly string[] = CONNECTOR_SECRET_FIELDS[connector.type as KnownConnectorType] ?? [];
    return fields.map((f) => connector.config[f]).filter((v): v is string => typeof v === 'string');
  });
}
