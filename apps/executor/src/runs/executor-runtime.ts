/**
 * The executor without HTTP: the `runs` worker, the report and log queues, the cancel listener and the catalog
 * RPC client. `stop()` drains: no new runs, active ones may finish within the grace period, the rest are handed
 * back to the queue for another executor.
 */
import { rm } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { Worker } from 'bullmq';
import { ConnectorPools, type ConnectorPoolOptions } from '@conduit/connectors';
import { QUEUES, RUN_LEASE_MAX_MS, RUN_LEASE_MIN_MS } from '@conduit/contracts';
import { RedisStreamsClient, RpcClient } from '@conduit/rpc-streams';
import type { Logger } from 'pino';
import { GroupedAdds, QueueProducers, QueueWorkers, reconnectDelay } from '@conduit/service-kit';
import type { SecretKeys } from '@conduit/secrets';
import { claimReplicaFolder, replicaFolderName } from '../data/replica-folder.js';
import type { RunMemory } from '../data/run-memory.js';
import { WorkspacePool } from '../data/workspace-pool.js';
import { strandedStatements } from '../data/workspace-database.js';
import { DEFAULT_INTERRUPT_GRACE } from '../data/interrupts.js';
import { CancelListener } from './cancel-listener.js';
import { ConnectorCache } from '../connectors/connector-cache.js';
import { ConnectorChangeListener } from '../connectors/connector-change-listener.js';
import { RunProcessor } from './run.processor.js';
import type { RunMetrics } from '../ops/run-metrics.js';

export interface ExecutorRuntimeOptions {
  redisUrl: string;
  redisPrefix: string;
  logger: Logger;
  /** Runs at once. */
  concurrency: number;
  nodeParallelism: number;
  dataDir: string;
  /** Each run's memory limit and what is derived from it (data/run-memory.ts). */
  runMemory: RunMemory;
  lockDurationMs: number;
  stalledIntervalMs: number;
  maxStalledCount: number;
  catalogTimeoutMs: number;
  /** Opens the sealed connector secrets the catalog answers (SECRETS_KEY and SECRETS_KEYS_PREVIOUS). */
  secretsKey: Buffer | SecretKeys;
  /** Default 200. */
  retryBackoffMs?: number;
  /** Run and node series for /metrics. */
  metrics?: RunMetrics;
  /** Bounds of the database connectors' connection pools (CONNECTOR_POOL_MAX, CONNECTOR_POOL_IDLE_MS). */
  connectorPools?: ConnectorPoolOptions;
  /** How long a node's interrupted DuckDB work may run on before it is given up (EXECUTOR_INTERRUPT_GRACE_MS). */
  interruptGraceMs?: number;
  /**
   * Told once work was given up: its statement holds a core until the process ends, so the executor should drain and
   * end (executor-main.ts). Later ones are logged only.
   */
  onStrandedWork?: () => void;
}

/**
 * A claim's lease is half the queue lock: a dead executor's lease then lapses no later than its lock, so the executor
 * that BullMQ's stalled check hands the job to can claim it at once (docs/reliability.md, "Runs execute once").
 */
export function leaseMsOf(lockDurationMs: number): number {
  return Math.min(RUN_LEASE_MAX_MS, Math.max(RUN_LEASE_MIN_MS, Math.floor(lockDurationMs / 2)));
}

export class ExecutorRuntime {
  readonly executorId = `${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`;
  /** events.scheduler (reports) and logs. */
  private readonly producers: QueueProducers;
  /** RPC to the catalog (connectors) and the scheduler (claims): the transport routes by pattern. */
  private readonly catalog: RedisStreamsClient;
  private readonly cancels: CancelListener;
  /** Keeps the processor's connector cache current (the catalog's change announcements). */
  private readonly connectorChanges: ConnectorChangeListener;
  private readonly processor: RunProcessor;
  private worker: Worker | null = null;
  /** Told onStrandedWork already. */
  private retiring = false;
  /** This process's folder of run spill folders (see data/replica-folder.ts). */
  private readonly spillRoot: string;
  /** Database connections shared by the runs and nodes of this process, closed at stop. */
  private readonly pools: ConnectorPools;
  /** The runs' DuckDB instances, kept from run to run (recycled and checked between runs). */
  private readonly workspaces: WorkspacePool;

  constructor(private readonly opts: ExecutorRuntimeOptions) {
    this.spillRoot = join(opts.dataDir, replicaFolderName(hostname(), process.pid));
    this.pools = new ConnectorPools(opts.connectorPools);
    const interrupts = {
      graceMs: opts.interruptGraceMs ?? DEFAULT_INTERRUPT_GRACE.graceMs,
      onStranded: (runId: string) => this.stranded(runId, interrupts.graceMs),
    };
    const workspace = { dataDir: this.spillRoot, memory: opts.runMemory, interrupts };
    this.workspaces = new WorkspacePool(workspace, opts.logger, opts.concurrency);
    // A report's add fails rather than waits out an outage (RunReporter tries it again); the connection comes back as the worker's.
    const connection = { url: opts.redisUrl, retryStrategy: reconnectDelay };
    this.producers = QueueProducers.open(opts, [QUEUES.eventsScheduler, QUEUES.logs], connection);
    this.catalog = new RedisStreamsClient({
      url: opts.redisUrl,
      prefix: opts.redisPrefix,
      timeoutMs: opts.catalogTimeoutMs,
    });
    this.cancels = new CancelListener(opts.redisUrl, opts.redisPrefix, opts.logger);
    const connectorCache = new ConnectorCache();
    this.connectorChanges = new ConnectorChangeListener(opts.redisUrl, opts.redisPrefix, connectorCache, opts.logger);
    const rpc = new RpcClient(this.catalog);
    this.processor = new RunProcessor({
      reports: new GroupedAdds(this.producers.of(QUEUES.eventsScheduler)),
      logs: new GroupedAdds(this.producers.of(QUEUES.logs)),
      catalog: rpc,
      scheduler: rpc,
      leaseMs: leaseMsOf(opts.lockDurationMs),
      secretsKey: opts.secretsKey,
      cancels: this.cancels,
      workspace,
      workspaces: this.workspaces,
      logger: opts.logger,
      executorId: this.executorId,
      nodeParallelism: opts.nodeParallelism,
      pools: this.pools,
      connectorCache,
      ...(opts.retryBackoffMs === undefined ? {} : { retryBackoffMs: opts.retryBackoffMs }),
      ...(opts.metrics === undefined ? {} : { metrics: opts.metrics }),
    });
  }

  /** A run's statement ran on past its interrupt's grace: it holds a core and a libuv thread until the process ends. */
  private stranded(runId: string, graceMs: number): void {
    this.opts.logger.error(
      { run_id: runId, grace_ms: graceMs, stranded_statements: strandedStatements() },
      'a DuckDB statement did not stop when interrupted: it holds a core until this executor ends, so it drains and restarts',
    );
    if (this.retiring) return;
    this.retiring = true;
    this.opts.onStrandedWork?.();
  }

  get activeRuns(): string[] {
    return this.processor.activeRuns;
  }

  async start(): Promise<void> {
    const folder = await claimReplicaFolder(this.opts.dataDir);
    if (folder.removed.length > 0)
      this.opts.logger.info({ removed: folder.removed }, 'removed the spill folders of dead executors');
    this.workspaces.warm();
    await Promise.all([
      this.cancels.start(),
      this.connectorChanges.start(),
      this.catalog.connect(),
      ...this.producers.all().map((p) => p.queue.waitUntilReady()),
    ]);
    const { logger } = this.opts;
    // Plain bullmq rather than a JobConsumer: the processor needs the job's lock token and abort signal to move the
    // job back (DelayedError, WaitingError) and to stop on a lost lock, and parses the command itself to refuse it.
    // Retention is the scheduler's, set on each run job (service-kit job-options.ts).
    const worker = new QueueWorkers(this.opts).open(QUEUES.runs, this.processor.process, {
      concurrency: this.opts.concurrency,
      lockDuration: this.opts.lockDurationMs,
      stalledInterval: this.opts.stalledIntervalMs,
      maxStalledCount: this.opts.maxStalledCount,
    });
    // A lock we could not renew belongs to someone else soon: stop the run without reporting its end.
    worker.on('lockRenewalFailed', (jobIds: string[]) => {
      for (const id of jobIds)
        if (this.processor.stop(id, 'lock_lost')) logger.warn({ run_id: id }, 'lost the run lock');
    });
    worker.on('error', (err) => logger.warn({ err }, 'runs worker error'));
    worker.on('failed', (job, err) => logger.warn({ run_id: job?.id, err: err.message }, 'run job failed'));
    await worker.waitUntilReady();
    this.worker = worker;
    logger.info({ executor_id: this.executorId, concurrency: this.opts.concurrency }, 'executor taking runs');
  }

  /** Drains within `graceMs`, then hands back what still runs; closes every connection. */
  async stop(graceMs: number): Promise<void> {
    const worker = this.worker;
    this.worker = null;
    if (worker) {
      // close() stops taking jobs and resolves once the active ones have finished.
      const closing = worker.close();
      let timer: NodeJS.Timeout | undefined;
      const expired = new Promise<'expired'>((resolve) => (timer = setTimeout(() => resolve('expired'), graceMs)));
      if ((await Promise.race([closing.then(() => 'closed' as const), expired])) === 'expired') {
        this.opts.logger.warn({ runs: this.processor.activeRuns }, 'grace period over: handing active runs back');
        this.processor.stopAll('shutdown');
        await closing;
      }
      clearTimeout(timer);
    }
    await Promise.allSettled([
      this.cancels.close(),
      this.connectorChanges.close(),
      this.catalog.close(),
      this.producers.close(),
      this.pools.closeAll(),
      this.workspaces.close(),
    ]);
    // Every run has ended or been handed back: nothing in the folder is anyone's any more.
    await rm(this.spillRoot, { recursive: true, force: true });
  }
}
