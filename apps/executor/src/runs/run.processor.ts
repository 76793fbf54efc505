/**
 * Processes one `runs` job: validates the command, claims the run from the scheduler (run-claim.ts), resolves
 * connectors from the catalog, executes the DAG (resuming what an earlier execution left), reports each node change
 * and run.finished with the claim's epoch, and ships log lines. A cancel message ends the run as canceled; a lost
 * lock or a shutdown stops it without a final report, so another executor takes it again; a refused claim or lease
 * renewal runs nothing more and reports nothing.
 */
import { DelayedError, UnrecoverableError, WaitingError, type Job } from 'bullmq';
import type { GroupedAdds } from '@conduit/service-kit';
import type { ConnectorPools } from '@conduit/connectors';
import type { RpcClient } from '@conduit/rpc-streams';
import { checkDagShape, referencedConnectorIds, type Dag } from '@conduit/dag';
import {
  runCommandSchema,
  type QUEUES,
  type ResolvedConnector,
  type RunCommand,
  type RunNode,
  type RpcContext,
} from '@conduit/contracts';
import type { Logger } from 'pino';
import type { SecretKeys } from '@conduit/secrets';
import { CachedConnectorResolver, resolveConnectors, ConnectorResolveError } from '../connectors/connector-resolver.js';
import type { ConnectorCache } from '../connectors/connector-cache.js';
import type { WorkspaceOptions } from '../data/run-workspace.js';
import type { WorkspaceSource } from '../data/workspace-pool.js';
import { executeRun, type RunOutcome } from '../engine/run-engine.js';
import { reportedError } from '../engine/reported-text.js';
import { repeatableNodeIds } from '../engine/repeatable-nodes.js';
import { inRunSpan } from './run-span.js';
import { RunLogShipper } from '../reporting/run-log-shipper.js';
import { RunReporter } from '../reporting/run-reporter.js';
import type { CancelListener } from './cancel-listener.js';
import { RunStop, stopKindOf, type RunStopKind } from './run-abort.js';
import { ClaimUnavailableError, RunLease, claimRun } from './run-claim.js';
import type { RunMetrics } from '../ops/run-metrics.js';

/** When the scheduler cannot answer a claim, the job waits this long in the queue and is claimed again. */
const CLAIM_RETRY_MS = 2000;
/**
 * Claims the scheduler answered with an error or a malformed reply (not an outage), in a row, before the job fails:
 * each is a takeover (a new epoch), so asking for ever would keep the run `running` for ever; a failed job is then
 * the reaper's to end as `executor_lost`, naming why.
 */
const MAX_ANSWERED_CLAIM_FAILURES = 3;
/** Margin past another execution's lease before claiming again (its renewal may be on its way). */
const HELD_MARGIN_MS = 250;

export interface RunProcessorDeps {
  reports: GroupedAdds<typeof QUEUES.eventsScheduler>;
  logs: GroupedAdds<typeof QUEUES.logs>;
  catalog: RpcClient;
  /** Claims and lease renewals (the same Redis Streams transport routes them to the scheduler). */
  scheduler: RpcClient;
  /** A claim's lease: at most half the queue lock, so a dead executor's lease has lapsed when its job is taken over. */
  leaseMs: number;
  /** The key that opens connector secrets, or the key ring during a rotation. */
  secretsKey: Buffer | SecretKeys;
  cancels: CancelListener;
  workspace: WorkspaceOptions;
  /** The runs' workspaces, kept from run to run (data/workspace-pool.ts); without it each run opens its own. */
  workspaces?: WorkspaceSource;
  logger: Logger;
  /** Names this executor in run.started. */
  executorId: string;
  nodeParallelism: number;
  retryBackoffMs?: number;
  /** Run and node series for /metrics (ops/run-metrics.ts). */
  metrics?: RunMetrics;
  /** The executor's database connection pools, shared by its runs; without them every node connects anew. */
  pools?: ConnectorPools;
  /**
   * Connector configs resolved by earlier runs, kept current by the catalog's change announcements (the runtime's
   * ConnectorChangeListener); without it every run asks the catalog.
   */
  connectorCache?: ConnectorCache;
}

export type RunJobResult = { status: RunOutcome['status'] | 'refused' | 'fenced' };

export class RunProcessor {
  private readonly active = new Map<string, AbortController>();
  /** Runs claimed or executed here now, from before the claim: the scheduler grants this executor's claims at once. */
  private readonly held = new Set<string>();
  /** Claims answered with an error, in a row, by run (at most 1,000 runs kept: see MAX_ANSWERED_CLAIM_FAILURES). */
  private readonly answeredClaimFailures = new Map<string, number>();
  private readonly cachedResolver: CachedConnectorResolver | undefined;

  constructor(private readonly deps: RunProcessorDeps) {
    deps.metrics?.countActiveWith(() => this.active.size);
    if (deps.connectorCache)
      this.cachedResolver = new CachedConnectorResolver(deps.catalog, deps.secretsKey, deps.connectorCache);
  }

  /** Runs being executed here now. */
  get activeRuns(): string[] {
    return [...this.active.keys()];
  }

  /** Stops a run held here (lock lost, shutdown); answers whether it was here. */
  stop(runId: string, kind: RunStopKind): boolean {
    const controller = this.active.get(runId);
    if (!controller) return false;
    if (!controller.signal.aborted) controller.abort(new RunStop(kind));
    return true;
  }

  stopAll(kind: RunStopKind): void {
    for (const runId of this.active.keys()) this.stop(runId, kind);
  }

  readonly process = (job: Job, token?: string, jobSignal?: AbortSignal): Promise<RunJobResult> =>
    inRunSpan(job, (command) => this.take(job, command, token, jobSignal));

  private async take(job: Job, data: unknown, token?: string, jobSignal?: AbortSignal): Promise<RunJobResult> {
    // The run started when this executor took it, before any of the work below.
    const takenAt = new Date();
    const parsed = runCommandSchema.safeParse(data);
    if (!parsed.success) {
      this.deps.logger.error({ job_id: job.id, issues: parsed.error.issues.length }, 'refused a malformed run command');
      throw new UnrecoverableError('malformed run command');
    }
    const command = parsed.data;
    // The job handed back here while its earlier execution winds down (a lost lock): never two of one run at once.
    if (this.held.has(command.run_id)) return this.waitForEarlier(job, token, command);
    this.held.add(command.run_id);
    try {
      return await this.claimAndExecute(job, token, jobSignal, command, takenAt);
    } finally {
      this.held.delete(command.run_id);
    }
  }

  private async claimAndExecute(
    job: Job,
    token: string | undefined,
    jobSignal: AbortSignal | undefined,
    command: RunCommand,
    takenAt: Date,
  ): Promise<RunJobResult> {
    const attempt = Math.max(1, job.attemptsStarted);
    // Asked while the claim is on its way: a refused claim wastes one catalog read and opens no run.
    const connectors = this.resolveConnectorsOf(command);
    connectors.catch(() => undefined);
    const claim = await this.claim(job, token, command, attempt);
    if (!claim) return { status: 'refused' };
    this.deps.metrics?.started(job.timestamp, takenAt.getTime(), attempt);
    const controller = new AbortController();
    this.active.set(command.run_id, controller);
    const onJobAbort = () => controller.abort(new RunStop('lock_lost'));
    jobSignal?.addEventListener('abort', onJobAbort, { once: true });
    const unregister = this.deps.cancels.register(command.run_id, () => controller.abort(new RunStop('canceled')));
    const lease = new RunLease(
      this.deps.scheduler,
      { runId: command.run_id, tenantId: command.tenant_id, epoch: claim.epoch, leaseMs: this.deps.leaseMs },
      () => controller.abort(new RunStop('fenced')),
      this.deps.logger,
    );
    lease.start();
    try {
      const outcome = await this.execute(
        command,
        { attempt, epoch: claim.epoch, recorded: claim.nodes },
        controller.signal,
        takenAt,
        connectors,
      );
      const stop = stopKindOf(controller.signal);
      if (stop === 'shutdown' && token) {
        // Back to waiting at once, instead of waiting for the lock and the lease to expire.
        await lease.release();
        await job.moveToWait(token);
        throw new WaitingError();
      }
      if (stop === 'lock_lost') throw new Error('lost the run lock; another executor takes the run');
      // Fenced: the run is another execution's or over; completing the job (if it is still ours) runs nothing again.
      return { status: stop === 'fenced' ? 'fenced' : outcome.status };
    } finally {
      lease.stop();
      unregister();
      jobSignal?.removeEventListener('abort', onJobAbort);
      this.active.delete(command.run_id);
    }
  }

  /** Sends the job back to wait a moment, claimed again once the earlier execution here has ended. */
  private async waitForEarlier(job: Job, token: string | undefined, command: RunCommand): Promise<never> {
    this.deps.logger.info(
      { run_id: command.run_id, executor_id: this.deps.executorId },
      'run still executing here; claiming again once it has stopped',
    );
    if (!token) throw new Error('the run is still executing here, and the job has no lock token to wait with');
    await job.moveToDelayed(Date.now() + HELD_MARGIN_MS, token);
    throw new DelayedError();
  }

  /**
   * Claims the run; answers the claim, or null when refused because the run is over (the job completes, nothing ran).
   * A run held by another live execution, or a scheduler that cannot answer, sends the job back to wait in the queue.
   */
  private async claim(
    job: Job,
    token: string | undefined,
    command: RunCommand,
    attempt: number,
  ): Promise<{ epoch: number; nodes: RunNode[] } | null> {
    const { logger } = this.deps;
    const ids = { run_id: command.run_id, attempt, executor_id: this.deps.executorId };
    let retryInMs: number;
    try {
      const claim = await claimRun(this.deps.scheduler, {
        runId: command.run_id,
        tenantId: command.tenant_id,
        attempt,
        executorId: this.deps.executorId,
        leaseMs: this.deps.leaseMs,
      });
      this.answeredClaimFailures.delete(command.run_id);
      if (claim.granted)
        return { epoch: claim.epoch, nodes: claim.nodes.map((n) => ({ ...n, columns: n.columns ?? null })) };
      if (claim.reason !== 'held') {
        logger.warn(
          { ...ids, reason: claim.reason, status: claim.status },
          'run claim refused: nothing runs, the queue job completes',
        );
        return null;
      }
      logger.info(
        { ...ids, retry_in_ms: claim.retry_in_ms },
        'run claim refused: another execution holds a live lease; claiming again after it',
      );
      retryInMs = (claim.retry_in_ms ?? 0) + HELD_MARGIN_MS;
    } catch (err) {
      if (!(err instanceof ClaimUnavailableError)) throw err;
      if (err.answered) this.countAnsweredClaimFailure(command.run_id, err.message);
      logger.warn({ ...ids, err: err.message }, 'could not claim the run; claiming again shortly');
      retryInMs = CLAIM_RETRY_MS;
    }
    if (!token) throw new Error('cannot claim the run now, and the job has no lock token to wait with');
    await job.moveToDelayed(Date.now() + retryInMs, token);
    throw new DelayedError();
  }

  /** Counts a claim answered with an error; at the bound, fails the queue job (UnrecoverableError: no retry). */
  private countAnsweredClaimFailure(runId: string, why: string): void {
    const failures = (this.answeredClaimFailures.get(runId) ?? 0) + 1;
    this.answeredClaimFailures.delete(runId);
    if (failures >= MAX_ANSWERED_CLAIM_FAILURES) {
      this.deps.logger.error({ run_id: runId, failures, err: why }, 'giving the run up: its claim keeps failing');
      throw new UnrecoverableError(`its claim failed ${failures} times in a row (${why})`);
    }
    if (this.answeredClaimFailures.size >= 1000) {
      const oldest = this.answeredClaimFailures.keys().next().value;
      if (oldest !== undefined) this.answeredClaimFailures.delete(oldest);
    }
    this.answeredClaimFailures.set(runId, failures);
  }

  /** The configs of the connectors the run's DAG uses, their secrets opened (connector-resolver.ts). */
  private async resolveConnectorsOf(command: RunCommand): Promise<Map<string, ResolvedConnector>> {
    const ids = connectorIdsOf(command.dag);
    const ctx: RpcContext = { tenant_id: command.tenant_id, scopes: ['read'], request_id: command.run_id };
    return this.cachedResolver
      ? this.cachedResolver.resolve(ids, command.connectors, ctx)
      : resolveConnectors(this.deps.catalog, ids, ctx, this.deps.secretsKey);
  }

  private async execute(
    command: RunCommand,
    claim: { attempt: number; epoch: number; recorded: RunNode[] },
    signal: AbortSignal,
    takenAt: Date,
    resolving: Promise<Map<string, ResolvedConnector>>,
  ): Promise<RunOutcome> {
    const { logger } = this.deps;
    const { attempt, epoch } = claim;
    const identity = { run_id: command.run_id, tenant_id: command.tenant_id, attempt };
    // Such a node's end may wait for the next report: a takeover would run it again anyway (repeatable-nodes.ts).
    const repeatable = repeatableNodeIds(command.dag);
    const reporter = new RunReporter(this.deps.reports, { ...identity, epoch }, logger, {
      endMayWait: (node) => repeatable.has(node.id),
    });
    const log = new RunLogShipper(this.deps.logs, { ...identity, job_id: command.job_id }, logger);
    const startedMs = takenAt.getTime();
    // The claim started the run on the scheduler's side: no run.started report.
    log.write(
      'info',
      null,
      `run started on ${this.deps.executorId} (attempt ${attempt}, epoch ${epoch}, pipeline version ${command.pipeline_version})`,
    );
    logger.info({ run_id: command.run_id, attempt, epoch }, 'run started');
    let outcome: RunOutcome;
    try {
      const connectors = await resolving;
      outcome = await executeRun({
        runId: command.run_id,
        tenantId: command.tenant_id,
        dag: command.dag,
        parameters: command.parameters,
        connectors,
        workspace: this.deps.workspace,
        workspaces: this.deps.workspaces,
        signal,
        log,
        onNodeChange: (node) => {
          this.deps.metrics?.nodeChanged(node);
          reporter.send({ type: 'run.node', node });
        },
        recorded: claim.recorded,
        maxParallelNodes: this.deps.nodeParallelism,
        pools: this.deps.pools,
        ...(this.deps.retryBackoffMs === undefined ? {} : { retryBackoffMs: this.deps.retryBackoffMs }),
      });
    } catch (err) {
      const known = err instanceof ConnectorResolveError;
      if (!known) logger.error({ err, run_id: command.run_id }, 'run failed unexpectedly');
      const message = known ? err.message : 'the executor failed unexpectedly';
      outcome = {
        status: signal.aborted ? 'canceled' : 'failed',
        error: reportedError(message, { code: known ? err.code : 'internal' }),
        nodes: [],
        stats: { rows_read: 0, rows_written: 0 },
      };
    }
    const stop = stopKindOf(signal);
    if (stop === undefined || stop === 'canceled') {
      const status = stop === 'canceled' ? 'canceled' : outcome.status;
      log.write(
        status === 'failed' ? 'error' : 'info',
        null,
        `run ${status} in ${Date.now() - startedMs} ms${outcome.error ? `: ${outcome.error.message}` : ''}`,
      );
      reporter.send({
        type: 'run.finished',
        status,
        error: status === 'canceled' ? null : outcome.error,
        stats: outcome.stats,
        nodes: outcome.nodes,
      });
      outcome = { ...outcome, status };
    } else if (stop === 'fenced') {
      log.write('warn', null, "run stopped: the scheduler refused this execution's lease (taken over, or ended)");
    } else {
      log.write('warn', null, `run handed back (${stop}); another executor takes it`);
    }
    await Promise.all([reporter.flushed(), log.flush()]);
    const end =
      stop === 'fenced' ? 'fenced' : stop === undefined || stop === 'canceled' ? outcome.status : 'handed_back';
    this.deps.metrics?.ended(end, (Date.now() - startedMs) / 1000, outcome.error?.code, outcome.stats);
    logger.info({ run_id: command.run_id, status: outcome.status, stop }, 'run ended');
    return outcome;
  }
}

/** Connector ids of a well-shaped DAG; a malformed one is reported by the engine. */
function connectorIdsOf(dag: Record<string, unknown>): string[] {
  return checkDagShape(dag).length === 0 ? referencedConnectorIds(dag as unknown as Dag) : [];
}
